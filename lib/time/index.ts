export { fuse, fuseSignal, realSleep, withDeadline } from './deadline.js';
export type { Clock, Sleep } from './deadline.js';
export { LoopDelay } from './loop-delay.js';
