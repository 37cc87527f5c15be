export type { DeadTurn } from './dead-turn.js';
export { LeaseKeeper } from './lease-keeper.js';
export { Reaper, MIN_LOOK_GAP_MS } from './reaper.js';
export type { ReaperOptions } from './reaper.js';
export { TurnLease, commitMarginMs } from './turn-lease.js';
export type { TurnOutcome } from './turn-lease.js';
