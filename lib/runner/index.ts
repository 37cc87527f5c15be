export { AckGate } from './ack-gate.js';
export { TurnRunner } from './turn-runner.js';
export type { Turn, TurnContext, TurnRunnerOptions } from './turn-runner.js';
export { TurnJournal } from './journal.js';
export type { JournalOptions } from './journal.js';
