export { FailoverReceiver, EVENTS_PATH, HEALTH_PATH } from './failover-receiver.js';
export type { FailoverReceiverOptions } from './failover-receiver.js';
export { readRawBody } from './raw-body.js';
export type { RawBody } from './raw-body.js';
