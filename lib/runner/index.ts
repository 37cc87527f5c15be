export { AckGate } from './ack-gate.js';
export { TurnRunner } from './turn-runner.js';
export type { Arrival, Claimable, ProbeWork, TurnRunnerOptions, TurnWork, Work } from './turn-runner.js';
export { deadlineGraceMs } from './turn.js';
export type { AdmitVerdict, Turn, BoltTurnContext } from './turn.js';
export { TurnJournal } from './journal.js';
export type { JournalOptions } from './journal.js';
export { LateAnswers, lateClickText, lateCommandText, RESPONSE_URL_MS } from './late-answers.js';
export type { LateAnswerPorts } from './late-answers.js';
