/**
 * The in-process store, for one copy running alone. Same outcomes and the same
 * guarantee as Redis: a key is claimed once, because each claim checks and
 * sets every key in one synchronous step.
 */
import { parseLeaseRecord, type LeaseRecord, type LeaseReply, type Takeover } from './lease.js';
import { CLAIMED, DUPLICATE, combineOutcomes, type ClaimOutcome } from './outcome.js';
import { encodeClaim, type ClaimOwner } from './record.js';
import { CLAIM_TTL_SECONDS, type ClaimStore, type LeaseRequest, type StoreHealth } from './store.js';

interface Entry {
  value: string;
  expiresAt: number;
}

export interface MemoryStoreOptions {
  /** @default Date.now */
  now?: () => number;
  /** @default 24 h */
  ttlSeconds?: number;
  /** Drop expired entries every this many writes. @default 1000 */
  sweepEvery?: number;
}

export class MemoryClaimStore implements ClaimStore {
  readonly kind = 'memory' as const;
  readonly #entries = new Map<string, Entry>();
  /** key -> when its lease lapses. */
  readonly #leases = new Map<string, number>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #sweepEvery: number;
  #writes = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = (options.ttlSeconds ?? CLAIM_TTL_SECONDS) * 1000;
    this.#sweepEvery = options.sweepEvery ?? 1000;
  }

  #live(key: string, now: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #set(key: string, value: string, ttlMs: number, now: number): void {
    this.#entries.set(key, { value, expiresAt: now + ttlMs });
    if (++this.#writes % this.#sweepEvery === 0) {
      for (const [k, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(k);
    }
  }

  async claim(keys: readonly string[], owner: ClaimOwner, lease?: LeaseRequest): Promise<ClaimOutcome> {
    const now = this.#now();
    const value = encodeClaim(owner, now, crypto.randomUUID(), lease?.body);
    const outcomes = keys.map((key) => {
      if (this.#live(key, now)) return DUPLICATE;
      this.#set(key, value, this.#ttlMs, now);
      return CLAIMED;
    });
    const outcome = combineOutcomes(outcomes);
    if (lease && outcome.kind === 'claimed' && keys[0]) {
      this.#leases.set(keys[0], now + lease.leaseMs);
      return { kind: 'claimed', token: 1 };
    }
    return outcome;
  }

  /** The record under `key` when `token` still owns a live turn. */
  #owned(key: string, token: number): LeaseRecord | undefined {
    const record = parseLeaseRecord(this.#live(key, this.#now())?.value);
    return record && record.token === token && record.state !== 'done' ? record : undefined;
  }

  #rewrite(key: string, record: LeaseRecord): void {
    const entry = this.#entries.get(key);
    if (entry) entry.value = JSON.stringify(record);
  }

  async renew(key: string, token: number, leaseMs: number): Promise<LeaseReply> {
    if (!this.#owned(key, token) || !this.#leases.has(key)) return 'lost';
    this.#leases.set(key, this.#now() + leaseMs);
    return 'ok';
  }

  async commit(key: string, token: number, leaseMs: number): Promise<LeaseReply> {
    const record = this.#owned(key, token);
    if (!record) return 'lost';
    this.#rewrite(key, { ...record, state: 'posting' });
    if (this.#leases.has(key)) this.#leases.set(key, this.#now() + leaseMs);
    return 'ok';
  }

  async finish(key: string, token: number, replyTs: string | null): Promise<LeaseReply> {
    const record = this.#owned(key, token);
    if (!record) return 'lost';
    const { body: _body, ...rest } = record;
    this.#set(key, JSON.stringify({ ...rest, state: 'done', ...(replyTs ? { reply_ts: replyTs } : {}) }), CLAIM_TTL_SECONDS * 1000, this.#now());
    this.#leases.delete(key);
    return 'ok';
  }

  async takeOver(owner: ClaimOwner, leaseMs: number, limit: number): Promise<Takeover[]> {
    const now = this.#now();
    const taken: Takeover[] = [];
    for (const [key, until] of this.#leases) {
      if (taken.length >= limit) break;
      if (until > now) continue;
      const record = parseLeaseRecord(this.#live(key, now)?.value);
      if (!record || record.state === 'done' || record.body === undefined) {
        this.#leases.delete(key);
        continue;
      }
      const next = { ...record, token: record.token + 1, instance: owner.instance, role: owner.role };
      this.#rewrite(key, next);
      this.#leases.set(key, now + leaseMs);
      taken.push({ key, token: next.token, state: record.state, body: record.body });
    }
    return taken;
  }

  async note(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.#set(key, value, ttlSeconds * 1000, this.#now());
  }

  async read(key: string): Promise<string | null> {
    return this.#live(key, this.#now())?.value ?? null;
  }

  async write(key: string, value: string, ttlMs: number): Promise<boolean> {
    this.#set(key, value, ttlMs, this.#now());
    return true;
  }

  readonly #lists = new Map<string, string[]>();

  async push(key: string, values: readonly string[], max: number): Promise<void> {
    const list = [...[...values].reverse(), ...(this.#lists.get(key) ?? [])].slice(0, max);
    this.#lists.set(key, list);
  }

  async range(key: string, count: number): Promise<string[]> {
    return (this.#lists.get(key) ?? []).slice(0, count);
  }

  async ping(): Promise<StoreHealth> {
    return { ok: true };
  }

  /** Number of live keys, for tests and the drill. */
  get size(): number {
    return this.#entries.size;
  }
}
