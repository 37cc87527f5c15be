/**
 * What the receiver, the rate-limit client and the status page need from the
 * shared store. Two adapters: Upstash (shared by hub and cloud copy) and
 * in-process (one copy alone).
 *
 * None of these methods throws: expected faults are values.
 */
import type { ClaimOutcome } from './outcome.js';
import type { ClaimOwner } from './record.js';

export type StoreKind = 'upstash' | 'memory';

export interface StoreHealth {
  ok: boolean;
  reason?: string;
}

export interface ClaimStore {
  readonly kind: StoreKind;
  /**
   * Take a delivery under every key in `keys` (SET NX each). Resolves
   * `claimed`, `duplicate` (a key was already taken) or `fail-open`.
   */
  claim(keys: readonly string[], owner: ClaimOwner): Promise<ClaimOutcome>;
  /**
   * A detached bookkeeping write made after the ack. Resolves when done;
   * callers need not await it. A failure is reported, never thrown.
   */
  note(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** A string value, `null` when absent, `undefined` when the store could not answer. */
  read(key: string): Promise<string | null | undefined>;
  /** Write a value that expires after `ttlMs`; false when the store could not take it. */
  write(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** A bounded round trip, for the health route. */
  ping(): Promise<StoreHealth>;
}

/** Claims outlive Slack's retry window (about 6 minutes) many times over. */
export const CLAIM_TTL_SECONDS = 24 * 60 * 60;
