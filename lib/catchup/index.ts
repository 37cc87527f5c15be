export { CatchupSweeper, sweepLockMs } from './sweeper.js';
export type { SweepRecord, SweeperOptions } from './sweeper.js';
export { readBack } from './read-back.js';
export type { HistoryClient, ReadBackOptions } from './read-back.js';
export { answeredLive, envelope, inWindow, repliedInThread, threadToRead, tsMs } from './found.js';
export type { Conversation, Me, SlackMessage } from './found.js';
export { sweepWindow, SWEEP_TO_LAG_MS } from './window.js';
export type { SweepInput, SweepWindow } from './window.js';
