export { realSleep, withDeadline } from './deadline.js';
export type { Clock, Sleep } from './deadline.js';
