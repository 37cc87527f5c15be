export { HINT_EVENT_TYPE, INBOX_HEADER, LEASE_HEADER, LEG_HEADER, LEGS, PROBE_EVENT_TYPE, pinnedLeg, signedSynthetic, syntheticBody } from './deliveries.js';
export type { LegName } from './deliveries.js';
