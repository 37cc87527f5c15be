export { HealthMonitor, healthReport, inboxView } from './health.js';
export type { HealthBody, HealthMonitorOptions, InboxSeen, InboxView, Lifecycle, StoreView, TurnsView } from './health.js';
export { PeerWatch, peerTransition } from './peer-watch.js';
export type { PeerState } from './peer-watch.js';
