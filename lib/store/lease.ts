/**
 * Leases: a claim that a live copy can take over when its owner dies
 * mid-turn. The record under the delivery's key goes `claimed` -> `posting`
 * -> `done`, carries a fencing token that grows with each takeover, and keeps
 * the delivery's body until it is done, so another copy can run the turn.
 *
 * Defaults, against a user who waits for an answer and, after ~30 s, assumes
 * the bot is broken:
 *   lease 10 s, renewed every 3 s (two renewals may fail before it lapses),
 *   a reaper every 5 s on every copy,
 *   so a dead owner's turn is taken over within 10 s + 5 s = 15 s.
 */
export interface LeaseSettings {
  /** @default 10000 */
  leaseMs: number;
  /** @default 3000 */
  renewMs: number;
  /** @default 5000 */
  reaperMs: number;
}

export const DEFAULT_LEASE: LeaseSettings = { leaseMs: 10_000, renewMs: 3_000, reaperMs: 5_000 };

export type LeaseState = 'claimed' | 'posting' | 'done';

/** What a lease operation came back with. `lost`: another copy holds the turn now. */
export type LeaseReply = 'ok' | 'lost' | 'unreachable';

/** A turn taken over from a copy whose lease lapsed. */
export interface Takeover {
  key: string;
  token: number;
  /** The state the dead owner left: `posting` means it may have posted. */
  state: 'claimed' | 'posting';
  body: string;
}

/** Where the reaper finds lapsed leases. */
export const LEASES_KEY = 'autohub:leases';

/** The stored record, as written by a claim and rewritten by the lease scripts. */
export interface LeaseRecord {
  instance: string;
  role: string;
  at: string;
  nonce: string;
  state: LeaseState;
  token: number;
  body?: string;
  reply_ts?: string | null;
}

export function parseLeaseRecord(stored: unknown): LeaseRecord | undefined {
  if (typeof stored !== 'string') return undefined;
  try {
    const record = JSON.parse(stored) as Partial<LeaseRecord>;
    return typeof record.token === 'number' && typeof record.state === 'string' ? (record as LeaseRecord) : undefined;
  } catch {
    return undefined;
  }
}
