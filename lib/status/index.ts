export { STATUS_KEYS, statusRecorder } from './records.js';
export type { CopyRecord, StatusRecorder, TurnRecord } from './records.js';
export { readSnapshot } from './snapshot.js';
export type { PeerView, SnapshotStore } from './snapshot.js';
export type { StatusSnapshot } from './snapshot.js';
export { ago, alertLine, inboxLine, scheduleLines, silence, silentAfterMs, statusBlocks, CLOUD_SILENT_WARN_MS } from './blocks.js';
export { mayReadStatus, pageFor, statusPage } from './page.js';
