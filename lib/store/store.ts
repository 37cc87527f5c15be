/**
 * What the receiver, the rate-limit client and the status page need from the
 * shared store. Two adapters: Upstash (shared by hub and cloud copy) and
 * in-process (one copy alone).
 *
 * None of these methods throws: expected faults are values.
 */
import type { LeaseReply, Takeover } from './lease.js';
import type { ClaimOutcome } from './outcome.js';
import type { ClaimOwner } from './record.js';

/** A claim that holds a lease: the delivery's body is kept until the turn is done. */
export interface LeaseRequest {
  leaseMs: number;
  body: string;
}

export type StoreKind = 'upstash' | 'memory';

export interface StoreHealth {
  ok: boolean;
  reason?: string;
}

export interface ClaimStore {
  readonly kind: StoreKind;
  /**
   * Take a delivery under every key in `keys` (SET NX each). Resolves
   * `claimed`, `duplicate` (a key was already taken) or `fail-open`. With a
   * lease, `claimed` carries token 1 and the first key's lease runs.
   */
  claim(keys: readonly string[], owner: ClaimOwner, lease?: LeaseRequest): Promise<ClaimOutcome>;
  /** Extend the lease while the turn runs; `lost` when the token no longer matches. */
  renew(key: string, token: number, leaseMs: number): Promise<LeaseReply>;
  /** The commit point before posting: -> `posting`, only with the current token. */
  commit(key: string, token: number, leaseMs: number): Promise<LeaseReply>;
  /** The turn is over: `done`, the body dropped, the reply's ts kept for a day. */
  finish(key: string, token: number, replyTs: string | null): Promise<LeaseReply>;
  /** Take over up to `limit` lapsed leases for `owner`, each with a new token. */
  takeOver(owner: ClaimOwner, leaseMs: number, limit: number): Promise<Takeover[]>;
  /**
   * A detached bookkeeping write made after the ack. Resolves when done;
   * callers need not await it. A failure is reported, never thrown.
   */
  note(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** A string value, `null` when absent, `undefined` when the store could not answer. */
  read(key: string): Promise<string | null | undefined>;
  /** Write a value that expires after `ttlMs`; false when the store could not take it. */
  write(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Put `values` (oldest first) at the head of the list `key`, keeping the newest `max`; never throws. */
  push(key: string, values: readonly string[], max: number): Promise<void>;
  /** The newest `count` values of the list `key`; [] when absent or unreachable. */
  range(key: string, count: number): Promise<string[]>;
  /** A bounded round trip, for the health route. */
  ping(): Promise<StoreHealth>;
}

/** Claims outlive Slack's retry window (about 6 minutes) many times over; a done turn is kept a day. */
export const CLAIM_TTL_SECONDS = 24 * 60 * 60;
