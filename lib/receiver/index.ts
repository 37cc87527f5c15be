export { FailoverReceiver, EVENTS_PATH, HEALTH_PATH } from './failover-receiver.js';
export type { FailoverReceiverOptions, TurnContext } from './failover-receiver.js';
export { HealthMonitor, healthReport } from './health.js';
export type { HealthBody, HealthMonitorOptions, Lifecycle, StoreView } from './health.js';
export { readRawBody } from './raw-body.js';
export { Reaper } from './reaper.js';
export { TurnLease } from './turn-lease.js';
export { TurnRunner } from './turn-runner.js';
