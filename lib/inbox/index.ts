export { createEdgeKeeper } from './edge-keeper.js';
export type { EdgeKeeper, KeepOutcome } from './edge-keeper.js';
export { CATCHING_UP_TEXT, keptKind, parseKept } from './kept.js';
export type { KeptDelivery, KeptKind } from './kept.js';
export { parseInboxSettings } from './settings.js';
export type { InboxSettings } from './settings.js';
export {
  createInboxStore,
  INBOX_EXPIRED_KEY,
  INBOX_KEY,
  INBOX_LOST_KEY,
  INBOX_REFUSED_KEY,
  InboxStoreError,
  KEEP_SCRIPT,
  STATS_SCRIPT,
  TAKE_SCRIPT,
} from './store.js';
export type { InboxStats, InboxStore, InboxStoreSettings, KeepResult, KeptMember } from './store.js';
export { createWebSealer, deriveStoreKeyWeb, parseStoreKey } from './web-seal.js';
export type { WebSealer } from './web-seal.js';
export { InboxDrainer, outageEndText, outageEndUnreadText, outageStartText, refusedText } from './drainer.js';
export type { DrainerPorts, DrainResult } from './drainer.js';
