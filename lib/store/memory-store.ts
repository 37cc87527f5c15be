/**
 * The in-process store, for one copy running alone. Same outcomes and the
 * same guarantees as the Redis scripts: each operation checks and writes in
 * one synchronous step, so nothing interleaves inside it.
 */
import { STATUS_KEYS } from './keys.js';
import { owns, parseLeaseRecord, releaseVerdict, type LeaseRecord, type LeaseReply, type Look, type ReleaseReply, type Takeover } from './lease.js';
import { Observed } from './observed.js';
import { WindowBook } from './window-book.js';
import { CLAIMED, DUPLICATE, type ClaimOutcome } from './outcome.js';
import { encodeAlias, encodeClaim, type ClaimOwner, type LeaseRequest } from './record.js';
import { CLAIM_TTL_SECONDS, DEAD_TTL_SECONDS, type DeadLetter, type SharedStore, type StoreHealth, type TurnLine } from './roles.js';

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
  /** A silence in serving longer than this is recorded for the catch-up sweep; 0: none. @default 0 */
  gapMs?: number;
}

export class MemoryStore implements SharedStore {
  readonly kind = 'memory' as const;
  readonly windows: WindowBook;
  readonly #entries = new Map<string, Entry>();
  /** key -> when its lease lapses (or its retry is due). */
  readonly #leases = new Map<string, number>();
  /** key -> when it died. */
  readonly #dead = new Map<string, number>();
  readonly #lists = new Map<string, string[]>();
  readonly #hashes = new Map<string, Map<string, string>>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #sweepEvery: number;
  readonly #observed: Observed;
  #writes = 0;
  #servedAt: number | undefined;
  readonly #gaps: Array<{ from: number; to: number }> = [];
  readonly #gapMs: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = (options.ttlSeconds ?? CLAIM_TTL_SECONDS) * 1000;
    this.#sweepEvery = options.sweepEvery ?? 1000;
    this.#observed = new Observed(this.#now);
    this.windows = new WindowBook(this.#now, () => {});
    this.#gapMs = options.gapMs ?? 0;
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

  /** Rewrite a record, keeping its expiry (KEEPTTL), or with a new ttl. */
  #rewrite(key: string, record: LeaseRecord, ttlMs?: number): void {
    const entry = this.#entries.get(key);
    if (ttlMs !== undefined) this.#set(key, JSON.stringify(record), ttlMs, this.#now());
    else if (entry) entry.value = JSON.stringify(record);
  }

  #record(key: string): LeaseRecord | undefined {
    return parseLeaseRecord(this.#live(key, this.#now())?.value);
  }

  async claim(keys: readonly string[], owner: ClaimOwner, lease?: LeaseRequest): Promise<ClaimOutcome> {
    const now = this.#now();
    const nonce = crypto.randomUUID();
    const held = keys.find((key) => this.#live(key, now));
    if (held !== undefined) return DUPLICATE;
    if (this.#servedAt !== undefined && this.#gapMs > 0 && now - this.#servedAt > this.#gapMs) this.#gaps.push({ from: this.#servedAt, to: now });
    this.#servedAt = now;
    keys.forEach((key, i) => {
      const value = i === 0 ? encodeClaim(owner, now, nonce, lease) : encodeAlias(owner, now, nonce);
      this.#set(key, i === 0 && lease ? JSON.stringify({ ...JSON.parse(value), first_at: now }) : value, this.#ttlMs, now);
    });
    if (lease && keys[0]) {
      this.#leases.set(keys[0], now + lease.leaseMs);
      return { kind: 'claimed', token: 1 };
    }
    return CLAIMED;
  }

  async renew(leases: readonly { key: string; token: number; confirmed?: number }[], leaseMs: number): Promise<LeaseReply[]> {
    return leases.map(({ key, token, confirmed }) => {
      const record = this.#record(key);
      if (!owns(record, token)) return 'lost';
      this.#leases.set(key, this.#now() + leaseMs);
      if (confirmed !== undefined) this.#rewrite(key, { ...record, stream_confirmed: confirmed });
      return 'ok';
    });
  }

  async markStream(key: string, token: number, ts: string): Promise<LeaseReply> {
    const record = this.#record(key);
    if (!owns(record, token)) return 'lost';
    this.#rewrite(key, { ...record, stream: ts });
    return 'ok';
  }

  async commit(key: string, token: number, leaseMs: number): Promise<LeaseReply> {
    const record = this.#record(key);
    if (!owns(record, token)) return 'lost';
    this.#rewrite(key, { ...record, state: 'posting' });
    this.#leases.set(key, this.#now() + leaseMs);
    return 'ok';
  }

  #turnLine(turn: TurnLine | undefined): void {
    if (!turn) return;
    void this.push(STATUS_KEYS.turns, [turn.line], 10);
  }

  async finish(key: string, token: number, replyTs: string | null, turn?: TurnLine): Promise<LeaseReply> {
    const record = this.#record(key);
    if (!owns(record, token)) return 'lost';
    const { body: _body, ...rest } = record;
    this.#rewrite(key, { ...rest, state: 'done', ...(replyTs ? { reply_ts: replyTs } : {}) }, CLAIM_TTL_SECONDS * 1000);
    this.#leases.delete(key);
    this.#turnLine(turn);
    if (turn?.cloud) {
      void this.push(STATUS_KEYS.failovers, [turn.at], 500);
      void this.note(STATUS_KEYS.cloudLastServed, turn.at, 30 * 24 * 60 * 60);
    }
    return 'ok';
  }

  #toDead(key: string, record: LeaseRecord, turn: TurnLine | undefined): void {
    const now = this.#now();
    this.#rewrite(key, { ...record, state: 'dead', dead_at: now }, DEAD_TTL_SECONDS * 1000);
    this.#leases.delete(key);
    this.#dead.set(key, now);
    this.#turnLine(turn);
  }

  async release(key: string, token: number, f: Parameters<SharedStore['release']>[2]): Promise<ReleaseReply> {
    const record = this.#record(key);
    if (!owns(record, token)) return 'lost';
    const now = this.#now();
    const next = { ...record, reason: f.reason, ambiguous: f.ambiguous };
    const attempts = record.attempts ?? 1;
    const verdict = releaseVerdict({ attempts, firstAt: record.first_at ?? now, now, delayMs: f.delayMs, policy: f.policy, free: f.free === true });
    if (verdict === 'dead') {
      this.#toDead(key, next, f.turn);
      return 'dead';
    }
    this.#rewrite(key, { ...next, state: 'retry', ...(f.free ? { attempts: attempts - 1 } : {}) });
    this.#leases.set(key, now + f.delayMs);
    return 'retry';
  }

  async deadLetter(key: string, token: number, reason: string, turn?: TurnLine): Promise<LeaseReply> {
    const record = this.#record(key);
    if (!owns(record, token)) return 'lost';
    this.#toDead(key, { ...record, reason }, turn);
    return 'ok';
  }

  #take(key: string, record: LeaseRecord, owner: ClaimOwner, leaseMs: number): Takeover {
    const next: LeaseRecord = {
      ...record,
      token: record.token + 1,
      instance: owner.instance,
      role: owner.role,
      attempts: (record.attempts ?? 1) + 1,
      state: 'claimed',
    };
    this.#rewrite(key, next);
    this.#leases.set(key, this.#now() + leaseMs);
    const state = record.state === 'posting' || record.state === 'retry' || record.state === 'dead' ? record.state : 'claimed';
    return {
      key,
      token: next.token,
      state,
      body: record.body ?? '',
      attempts: next.attempts ?? 1,
      ambiguous: record.ambiguous === true,
      ...(record.stream ? { streamTs: record.stream } : {}),
    };
  }

  async look(owner: ClaimOwner, leaseMs: number, limit: number, heartbeat?: string): Promise<Look> {
    const now = this.#now();
    const taken: Takeover[] = [];
    const due = [...this.#leases].filter(([, until]) => until <= now).sort((a, b) => a[1] - b[1]);
    for (const [key] of due.slice(0, limit)) {
      const record = this.#record(key);
      const live = record && record.body !== undefined && (record.state === 'claimed' || record.state === 'posting' || record.state === 'retry');
      if (!live) this.#leases.delete(key);
      else taken.push(this.#take(key, record, owner, leaseMs));
    }
    if (heartbeat) {
      const copies = this.#hashes.get(STATUS_KEYS.copies) ?? new Map<string, string>();
      copies.set(owner.instance, heartbeat);
      this.#hashes.set(STATUS_KEYS.copies, copies);
    }
    const next = Math.min(...this.#leases.values());
    const gap = this.#gaps[0];
    return {
      taken,
      nextDueMs: Number.isFinite(next) ? Math.max(0, next - now) : null,
      sinceServedMs: this.#servedAt === undefined ? null : now - this.#servedAt,
      gap: gap ? { raw: `${gap.from}:${gap.to}`, startedMsAgo: now - gap.from, endedMsAgo: now - gap.to } : null,
      nowMs: now,
    };
  }

  async dropGap(raw: string): Promise<void> {
    const i = this.#gaps.findIndex((g) => `${g.from}:${g.to}` === raw);
    if (i >= 0) this.#gaps.splice(i, 1);
  }

  async pending(): Promise<number> {
    return this.#leases.size;
  }

  async listDead(limit: number): Promise<DeadLetter[]> {
    const out: DeadLetter[] = [];
    for (const [key, at] of [...this.#dead].sort((a, b) => b[1] - a[1])) {
      const record = this.#record(key);
      if (!record || record.state !== 'dead') {
        this.#dead.delete(key);
        continue;
      }
      if (out.length >= limit) break;
      out.push({
        key,
        eventId: record.event_id ?? key.split(':').pop() ?? key,
        channel: record.channel ?? null,
        reason: record.reason ?? 'unknown',
        attempts: record.attempts ?? 1,
        at: new Date(at).toISOString(),
      });
    }
    return out;
  }

  async replayDead(key: string, owner: ClaimOwner, leaseMs: number): Promise<Takeover | undefined> {
    const record = this.#record(key);
    if (!record || record.state !== 'dead' || record.body === undefined) return undefined;
    this.#dead.delete(key);
    return this.#take(key, { ...record, attempts: 0, first_at: this.#now(), ambiguous: true }, owner, leaseMs);
  }

  async dropDead(key: string): Promise<boolean> {
    const record = this.#record(key);
    if (!record || record.state !== 'dead') return false;
    const { body: _body, ...rest } = record;
    this.#rewrite(key, { ...rest, state: 'dropped' }, CLAIM_TTL_SECONDS * 1000);
    this.#dead.delete(key);
    return true;
  }

  async lock(key: string, ttlSeconds: number, holder: string): Promise<boolean> {
    const now = this.#now();
    const held = this.#live(key, now);
    if (held && held.value !== holder) return false;
    this.#set(key, holder, ttlSeconds * 1000, now);
    return true;
  }

  async unlock(key: string, holder: string): Promise<void> {
    if (this.#live(key, this.#now())?.value === holder) this.#entries.delete(key);
  }

  async note(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.#set(key, value, ttlSeconds * 1000, this.#now());
  }

  async read(key: string): Promise<string | null> {
    return this.#live(key, this.#now())?.value ?? null;
  }

  async readHash(key: string): Promise<Record<string, string>> {
    return Object.fromEntries(this.#hashes.get(key) ?? []);
  }

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

  observed(): StoreHealth & { at: number | null } {
    return this.#observed.get();
  }

  /** Number of live keys, for tests and the drill. */
  get size(): number {
    return this.#entries.size;
  }
}

