export { parseDelivery, PROBE_EVENT_TYPE } from './delivery.js';
export type { AppRateLimited, Delivery } from './delivery.js';
