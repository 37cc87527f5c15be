/**
 * The store's public face: what callers outside lib/store use, and nothing
 * more. Tests of the store's own workings import its modules directly.
 */
export { failOpen } from './outcome.js';
export type { ClaimKind, ClaimOutcome } from './outcome.js';
export type { ClaimOwner, LeaseRequest, Role } from './record.js';
export {
  LEASES_KEY,
  LEGS_LOCK_KEY,
  STATUS_KEYS,
  SWEEP_LOCK_KEY,
  agentContextKey,
  agentOpenedKey,
  assistantOnceKey,
  assistantThreadKey,
  botLoopKey,
  eventKey,
  feedbackHeardKey,
  followUpKey,
  messageKey,
  newestOrderKey,
  noticeLockKey,
  noticeStatusKey,
  stepsKey,
  triggerKey,
  usageKey,
} from './keys.js';
export { CLAIM_TTL_SECONDS, STORE_LIMITS } from './limits.js';
export { logReporter } from './reporter.js';
export type {
  ClaimOptions,
  Claims,
  ConversationPlace,
  Conversations,
  DeadLetter,
  DeadLetters,
  Leases,
  Lists,
  Pingable,
  Records,
  SharedStore,
  SharedWindows,
  StoreKind,
  StreamDetail,
  TurnLine,
  TurnSteps,
  UpstashSettings,
} from './roles.js';
export { MemoryStore } from './memory-store.js';
export { UpstashStore } from './upstash-store.js';
export { createUpstashClient } from './upstash-client.js';
export { DEFAULT_COMMAND_MS } from './budget.js';
export { createStore } from './create-store.js';
export { DEFAULT_RETRY, parseLeaseRecord, releaseVerdict, retryDelayMs } from './lease.js';
export type { EndReply, Gap, LeaseReply, LeaseSettings, Look, ReleaseReply, RestoreDetail, RetryPolicy, Takeover } from './lease.js';
export { createSealer, deriveStoreKey, isSealed, storeKeyId } from './seal.js';
export type { Sealer } from './seal.js';
