export { eventDelivery, parseDelivery, PROBE_EVENT_TYPE } from './delivery.js';
export type { AppRateLimited, Delivery } from './delivery.js';
export { leaseRequest, MAX_STORED_BODY_BYTES, storedBody } from './lease-request.js';
