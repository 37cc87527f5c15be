export { eventDelivery, formDelivery, parseDelivery, PROBE_EVENT_TYPE } from './delivery.js';
export type { AppRateLimited, Delivery } from './delivery.js';
export { deliveryLeaseRequest, FORM_KIND_FIELD, leaseRequest, MAX_STORED_BODY_BYTES, storedBody, storedDelivery, workIdOf } from './lease-request.js';
export type { Leasable } from './lease-request.js';
