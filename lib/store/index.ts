export { CLAIMED, DUPLICATE, classifyClaimReply, describeReply, failOpen } from './outcome.js';
export type { ClaimKind, ClaimOutcome, ClaimReply } from './outcome.js';
export { encodeAlias, encodeClaim } from './record.js';
export type { ClaimOwner, ClaimRecord, LeaseRequest, Role } from './record.js';
export {
  DEAD_KEY,
  GAPS_KEY,
  LEASES_INDEXED,
  LEASES_KEY,
  LEGS_LOCK_KEY,
  SERVED_KEY,
  STATUS_KEYS,
  SWEEP_LOCK_KEY,
  WINDOWS_KEY,
  eventKey,
  messageKey,
  noticeLockKey,
  noticeStatusKey,
  triggerKey,
  usageKey,
} from './keys.js';
export { logReporter } from './reporter.js';
export type { StoreFault, StoreReporter } from './reporter.js';
export { CLAIM_TTL_SECONDS, DEAD_TTL_SECONDS } from './roles.js';
export type {
  Claims,
  ConfirmReply,
  DeadLetter,
  DeadLetters,
  Leases,
  Lists,
  LookOptions,
  Pingable,
  Records,
  SharedStore,
  SharedWindows,
  StoreHealth,
  StoreKind,
  TurnLine,
  UpstashSettings,
} from './roles.js';
export type { TurnSteps } from './roles.js';
export { stepsKey } from './keys.js';
export { DEFAULT_CLAIM_BUDGET, claimDeadlineMs } from './budget.js';
export type { ClaimBudget } from './budget.js';
export { MemoryStore } from './memory-store.js';
export type { MemoryStoreOptions } from './memory-store.js';
export { UpstashStore } from './upstash-store.js';
export type { UpstashStoreOptions } from './upstash-store.js';
export { createUpstashClient } from './upstash-client.js';
export type { StoreClient } from './upstash-client.js';
export { httpRequester, StoreReplyError } from './upstash-requester.js';
export { createStore } from './create-store.js';
export type { StoreConfig } from './create-store.js';
export {
  DEFAULT_LEASE,
  DEFAULT_RETRY,
  lapsedVerdict,
  ownerDiedReason,
  owns,
  parseGap,
  parseLeaseRecord,
  parseTakeover,
  releaseVerdict,
  retryDelayMs,
} from './lease.js';
export type { EndReply, Gap, LeaseRecord, LeaseReply, RestoreDetail, LeaseSettings, LeaseState, Look, ReleaseReply, RetryPolicy, Takeover } from './lease.js';
export { createSealer, deriveStoreKey } from './seal.js';
export type { Sealer } from './seal.js';
/** The claim script itself, for tests of how its reply reads over the REST API. */
export { CLAIM_SCRIPT } from './scripts.js';
