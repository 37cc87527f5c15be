export { checkedSchedules, parseSchedules, MIN_EVERY_MS } from './spec.js';
export type { ParsedSchedules, Schedule, ScheduleSpec } from './spec.js';
export { firingOf, scheduleEnvelope, scheduleEventId, SCHEDULE_EVENT_TYPE, slotTs } from './envelope.js';
export type { ScheduleFiring } from './envelope.js';
export { CATCH_UP_SLOTS, lateAfterMs, MISSED_REACH_MS, Scheduler } from './scheduler.js';
export type { After, InjectOutcome, SchedulerOptions, ScheduleView } from './scheduler.js';
