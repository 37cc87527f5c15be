/**
 * The in-process store, for one copy running alone. Same outcomes and the
 * same guarantees as the Redis scripts: each operation checks and writes in
 * one synchronous step, so nothing interleaves inside it. Every lifetime and
 * cap is the scripts' own (STORE_LIMITS), kept on the injected clock as Redis
 * keeps its TTLs; test/store/contract.test.ts runs both against one table.
 */
import { conversationKeys, GAPS_KEY, newestOrderKey, SERVED_KEY, STATUS_KEYS, stepsKey } from './keys.js';
import {
  deadLetterFrom,
  lapsedVerdict,
  ownerDiedReason,
  owns,
  parseGap,
  parseLeaseRecord,
  releaseVerdict,
  type EndReply,
  type LeaseRecord,
  type LeaseReply,
  type Look,
  type ReleaseReply,
  type RestoreDetail,
  type Takeover,
} from './lease.js';
import { Observed } from './observed.js';
import { WindowBook } from './window-book.js';
import { CLAIMED, DUPLICATE, type ClaimOutcome } from './outcome.js';
import { encodeAlias, encodeClaim, encodeRestored, type ClaimOwner, type LeaseRequest } from './record.js';
import { STORE_LIMITS as L } from './limits.js';
import type { ClaimOptions, ConfirmReply, ConversationPlace, DeadLetter, LookOptions, SharedStore, StoreHealth, TurnLine } from './roles.js';

/** A turn that holds its place in its conversation (the scripts' `live`): claimed, posting, or waiting for a retry. */
function isLive(state: string | undefined): boolean {
  return state === 'claimed' || state === 'posting' || state === 'retry';
}

/** A value and when it lapses (ms on the store's clock), as Redis keeps a key with a TTL. */
interface Timed<T> {
  value: T;
  expiresAt: number;
}

/** One kind of key (strings, lists, hashes) with Redis's expiry: a lapsed key reads as absent and is dropped. */
class Keyspace<T> {
  readonly #keys = new Map<string, Timed<T>>();

  get(key: string, now: number): T | undefined {
    const timed = this.#keys.get(key);
    if (timed && timed.expiresAt <= now) {
      this.#keys.delete(key);
      return undefined;
    }
    return timed?.value;
  }

  set(key: string, value: T, expiresAt: number): void {
    this.#keys.set(key, { value, expiresAt });
  }

  /** Rewrite a live key's value, its expiry kept (KEEPTTL). */
  keep(key: string, value: T): void {
    const timed = this.#keys.get(key);
    if (timed) timed.value = value;
  }

  delete(key: string): void {
    this.#keys.delete(key);
  }

  /** Drop every lapsed key. */
  sweep(now: number): void {
    for (const [key, timed] of this.#keys) if (timed.expiresAt <= now) this.#keys.delete(key);
  }

  clear(): void {
    this.#keys.clear();
  }

  keys(): IterableIterator<string> {
    return this.#keys.keys();
  }

  get size(): number {
    return this.#keys.size;
  }
}

export interface MemoryStoreOptions {
  /** The store's clock (Redis's TIME on Upstash). @default Date.now */
  now?: () => number;
  /** @default STORE_LIMITS.claimTtlSeconds */
  ttlSeconds?: number;
  /** Drop expired entries every this many writes. @default 1000 */
  sweepEvery?: number;
  /** A silence in serving longer than this is recorded for the catch-up sweep; 0: none. @default 0 */
  gapMs?: number;
  /** @default crypto.randomUUID */
  nonce?: () => string;
}

export class MemoryStore implements SharedStore {
  readonly kind = 'memory' as const;
  readonly windows: WindowBook;
  readonly #entries = new Keyspace<string>();
  readonly #lists = new Keyspace<string[]>();
  readonly #hashes = new Keyspace<Map<string, string>>();
  /** key -> when its lease lapses (or its retry is due). */
  readonly #leases = new Map<string, number>();
  /** key -> when it died. */
  readonly #dead = new Map<string, number>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #sweepEvery: number;
  readonly #observed: Observed;
  #writes = 0;
  readonly #gapMs: number;
  readonly #nonce: () => string;
  /** The lease set is known whole (the Redis set's `~indexed` mark): false after it was lost, until a look rebuilds it. */
  #indexed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = (options.ttlSeconds ?? L.claimTtlSeconds) * 1000;
    this.#sweepEvery = options.sweepEvery ?? 1000;
    this.#observed = new Observed(this.#now);
    this.windows = new WindowBook(this.#now, () => {});
    this.#gapMs = options.gapMs ?? 0;
    this.#nonce = options.nonce ?? (() => crypto.randomUUID());
  }

  #live(key: string, now: number): string | undefined {
    return this.#entries.get(key, now);
  }

  #set(key: string, value: string, ttlMs: number, now: number): void {
    this.#entries.set(key, value, now + ttlMs);
    if (++this.#writes % this.#sweepEvery === 0) {
      for (const space of [this.#entries, this.#lists, this.#hashes]) space.sweep(now);
    }
  }

  /** Rewrite a record, keeping its expiry (KEEPTTL), or with a new ttl. */
  #rewrite(key: string, record: LeaseRecord, ttlMs?: number): void {
    if (ttlMs !== undefined) this.#set(key, JSON.stringify(record), ttlMs, this.#now());
    else this.#entries.keep(key, JSON.stringify(record));
  }

  #record(key: string): LeaseRecord | undefined {
    return parseLeaseRecord(this.#live(key, this.#now()));
  }

  async claim(keys: readonly string[], owner: ClaimOwner, lease?: LeaseRequest, options: ClaimOptions = {}): Promise<ClaimOutcome> {
    const now = this.#now();
    const nonce = options.nonce ?? this.#nonce();
    const held = keys.find((key) => this.#live(key, now) !== undefined);
    if (held !== undefined) return DUPLICATE;
    this.#served(now);
    keys.forEach((key, i) => {
      const value = i === 0 ? encodeClaim(owner, now, nonce, lease) : encodeAlias(owner, now, nonce);
      this.#set(key, i === 0 && lease ? JSON.stringify({ ...JSON.parse(value), first_at: now }) : value, this.#ttlMs, now);
    });
    if (lease && keys[0]) {
      this.#leases.set(keys[0], now + lease.leaseMs);
      // As the claim script: the turn's place in its conversation's order, at the claim's time (kept if taken).
      if (lease.conversation !== undefined) {
        const { order: orderKey } = conversationKeys(lease.conversation);
        const order = this.#conversations.get(orderKey, now) ?? new Map<string, number>();
        if (!order.has(keys[0])) order.set(keys[0], now);
        this.#conversations.set(orderKey, order, now + L.conversationTtlSeconds * 1000);
        if (options.firstLook === true && this.#firstLook(lease.conversation, keys[0], order, now)) return { kind: 'claimed', token: 1, admitted: true };
      }
      return { kind: 'claimed', token: 1 };
    }
    return CLAIMED;
  }

  /**
   * As the claim script with its first look: a turn alone in its order (not skipped, no other member
   * live) is admitted as enterConversation would admit it, the ended members dropped; true when it was.
   */
  #firstLook(conversation: string, turnKey: string, order: Map<string, number>, now: number): boolean {
    const keys = conversationKeys(conversation);
    if (this.#skipped.get(keys.skipped, now)?.has(turnKey)) return false;
    const others = [...order.keys()].filter((member) => member !== turnKey);
    if (others.some((member) => isLive(this.#record(member)?.state))) return false;
    const admitted = this.#admitted.get(keys.admitted, now) ?? new Set<string>();
    const interrupted = this.#interrupted.get(keys.interrupted, now);
    for (const member of others) {
      order.delete(member);
      admitted.delete(member);
      interrupted?.delete(member);
    }
    admitted.add(turnKey);
    this.#admitted.set(keys.admitted, admitted, now + L.conversationTtlSeconds * 1000);
    return true;
  }

  /** As the claim script: a silence since the served mark longer than the gap is recorded (the newest kept), then the mark moves to now. */
  #served(now: number): void {
    const prev = this.#live(SERVED_KEY, now);
    if (prev !== undefined && this.#gapMs > 0 && now - Number(prev) > this.#gapMs) {
      const gaps = [...(this.#lists.get(GAPS_KEY, now) ?? []), `${prev}:${now}`].slice(-L.gapsKept);
      this.#lists.set(GAPS_KEY, gaps, now + L.gapsTtlSeconds * 1000);
    }
    this.#set(SERVED_KEY, String(now), L.servedTtlSeconds * 1000, now);
  }

  /** `missing` when the key holds nothing at all (the scripts' OWNED_OR_MISSING). */
  #missing(key: string): boolean {
    return this.#live(key, this.#now()) === undefined;
  }

  async confirm(key: string, nonce: string, leaseMs: number): Promise<ConfirmReply> {
    if (this.#missing(key)) return 'absent';
    const record = this.#record(key);
    if (!record || record.nonce !== nonce) return 'held';
    if (!owns(record, 1)) return 'lost';
    this.#leases.set(key, this.#now() + leaseMs);
    return 'mine';
  }

  async renew(leases: readonly { key: string; token: number; confirmed?: number }[], leaseMs: number): Promise<LeaseReply[]> {
    return leases.map(({ key, token, confirmed }) => {
      if (this.#missing(key)) return 'missing';
      const record = this.#record(key);
      if (!owns(record, token)) return 'lost';
      this.#leases.set(key, this.#now() + leaseMs);
      // A renewal acknowledges a look's take (as RENEW_SCRIPT does).
      if (confirmed !== undefined || record.unacked !== undefined) {
        const { unacked: _acked, ...rest } = record;
        this.#rewrite(key, { ...rest, ...(confirmed !== undefined ? { stream_confirmed: confirmed } : {}) });
      }
      return 'ok';
    });
  }

  async markStream(key: string, token: number, ts: string): Promise<LeaseReply> {
    if (this.#missing(key)) return 'missing';
    const record = this.#record(key);
    if (!owns(record, token)) return 'lost';
    this.#rewrite(key, { ...record, stream: ts });
    return 'ok';
  }

  async commit(key: string, token: number, leaseMs: number): Promise<LeaseReply> {
    if (this.#missing(key)) return 'missing';
    const record = this.#record(key);
    if (!owns(record, token)) return 'lost';
    this.#rewrite(key, { ...record, state: 'posting' });
    this.#leases.set(key, this.#now() + leaseMs);
    return 'ok';
  }

  async restore(key: string, token: number, owner: ClaimOwner, request: LeaseRequest, aliasKeys: readonly string[], detail?: RestoreDetail): Promise<EndReply> {
    const now = this.#now();
    if (!this.#missing(key)) {
      if (!owns(this.#record(key), token)) return 'lost';
    } else {
      const nonce = this.#nonce();
      const record = { ...JSON.parse(encodeRestored(owner, now, nonce, token, request, detail)), first_at: now };
      this.#set(key, JSON.stringify(record), this.#ttlMs, now);
      for (const alias of aliasKeys) if (!this.#live(alias, now)) this.#set(alias, encodeAlias(owner, now, nonce), this.#ttlMs, now);
    }
    this.#leases.set(key, now + request.leaseMs);
    return 'ok';
  }

  #turnLine(turn: TurnLine | undefined): void {
    if (!turn) return;
    void this.push(STATUS_KEYS.turns, [turn.line], L.turnLines);
  }

  async finish(key: string, token: number, replyTs: string | null, turn?: TurnLine): Promise<LeaseReply> {
    if (this.#missing(key)) return 'missing';
    const record = this.#record(key);
    if (!owns(record, token)) return 'lost';
    const { body: _body, ...rest } = record;
    this.#rewrite(key, { ...rest, state: 'done', ...(replyTs ? { reply_ts: replyTs } : {}) }, L.claimTtlSeconds * 1000);
    this.#leases.delete(key);
    this.#turnLine(turn);
    if (turn?.cloud) {
      void this.push(STATUS_KEYS.failovers, [turn.at], L.failoverLines);
      void this.note(STATUS_KEYS.cloudLastServed, turn.at, L.cloudServedTtlSeconds);
    }
    return 'ok';
  }

  #toDead(key: string, record: LeaseRecord, turn: TurnLine | undefined): void {
    const now = this.#now();
    this.#rewrite(key, { ...record, state: 'dead', dead_at: now }, L.deadTtlSeconds * 1000);
    this.#leases.delete(key);
    this.#dead.set(key, now);
    this.#turnLine(turn);
  }

  async release(key: string, token: number, f: Parameters<SharedStore['release']>[2]): Promise<ReleaseReply> {
    if (this.#missing(key)) return 'missing';
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
    if (this.#missing(key)) return 'missing';
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

  async look(owner: ClaimOwner, leaseMs: number, limit: number, heartbeat?: string, options: LookOptions = {}): Promise<Look> {
    const { policy, running = [], told = [] } = options;
    const now = this.#now();
    // Dead letters this copy told its owner of: reported no more (as the look script).
    for (const key of told) {
      const record = this.#record(key);
      if (record?.state !== 'dead') continue;
      const { untold: _told, ...rest } = record;
      if (record.untold !== undefined) this.#rewrite(key, rest);
      this.#leases.delete(key);
    }
    const taken: Takeover[] = [];
    const dead: DeadLetter[] = [];
    const due = [...this.#leases].filter(([, until]) => until <= now).sort((a, b) => a[1] - b[1]);
    for (const [key] of due.slice(0, limit)) {
      const record = this.#record(key);
      // A look's dead letter not told yet (that look's answer lost): reported again, a lease from now.
      if (record?.state === 'dead' && record.untold === 1) {
        this.#leases.set(key, now + leaseMs);
        dead.push(deadLetterFrom(record, key));
        continue;
      }
      const live = record && record.body !== undefined && (record.state === 'claimed' || record.state === 'posting' || record.state === 'retry');
      if (!live) {
        this.#leases.delete(key);
        continue;
      }
      // This copy runs it (a claim that landed late): kept for it, never taken by its own look.
      if (running.includes(key)) {
        this.#leases.set(key, now + leaseMs);
        continue;
      }
      // Its owner died (or froze past its lease): that run counts, as the look script counts it.
      // Taken before and never acknowledged by its taker's renewal: no run, no death (as the look script).
      const unacked = record.unacked === 1 && record.state === 'claimed';
      const base = unacked ? { ...record, attempts: Math.max(1, (record.attempts ?? 1) - 1) } : record;
      const died = record.state !== 'retry' && !unacked;
      const next = died ? { ...base, deaths: (base.deaths ?? 0) + 1 } : base;
      const verdict = policy ? lapsedVerdict({ attempts: base.attempts ?? 1, firstAt: base.first_at ?? now, now, policy }) : 'take';
      if (died && verdict === 'dead') {
        dead.push(this.#diedOut(key, next));
        this.#leases.set(key, now + leaseMs);
      } else taken.push(this.#take(key, { ...next, unacked: 1 }, owner, leaseMs));
    }
    const reindexed = this.#indexed ? 0 : this.#reindex(leaseMs);
    if (heartbeat) this.#hset(STATUS_KEYS.copies, owner.instance, heartbeat, L.heartbeatTtlSeconds);
    const next = Math.min(...this.#leases.values());
    const served = this.#live(SERVED_KEY, now);
    const gap = this.#lists.get(GAPS_KEY, now)?.[0];
    return {
      taken,
      nextDueMs: Number.isFinite(next) ? Math.max(0, next - now) : null,
      sinceServedMs: served === undefined ? null : Math.max(0, now - Number(served)),
      gap: gap === undefined ? null : parseGap(`gap:${gap}:${now}`),
      dead,
      reindexed,
      nowMs: now,
    };
  }

  /** A lapsed turn whose owners kept dying, dead-lettered by the look: listed as `listDead` lists it. */
  #diedOut(key: string, record: LeaseRecord): DeadLetter {
    const reason = ownerDiedReason(record.deaths ?? 1);
    this.#toDead(key, { ...record, reason, untold: 1 }, undefined);
    return deadLetterFrom({ ...record, reason, dead_at: this.#now() }, key);
  }

  /** A lost lease set rebuilt from the records (REINDEX_SCRIPT): each live turn missing from it, due a lease from now. */
  #reindex(leaseMs: number): number {
    const now = this.#now();
    let added = 0;
    for (const key of this.#entries.keys()) {
      if (!key.includes(':event:') || this.#leases.has(key)) continue;
      const record = this.#record(key);
      if (record?.body !== undefined && (record.state === 'claimed' || record.state === 'posting' || record.state === 'retry')) {
        this.#leases.set(key, now + leaseMs);
        added++;
      }
    }
    this.#indexed = true;
    return added;
  }

  /** What Upstash does to a full database: one key evicted. For tests and the drill. */
  evict(key: string): void {
    for (const space of [this.#entries, this.#lists, this.#hashes]) space.delete(key);
  }

  /** The lease set deleted (or evicted) on its own. For tests and the drill. */
  dropIndex(): void {
    this.#leases.clear();
    this.#indexed = false;
  }

  /** FLUSHALL. For tests and the drill. */
  flush(): void {
    this.#entries.clear();
    this.#dead.clear();
    this.#lists.clear();
    this.#hashes.clear();
    this.dropIndex();
  }

  async dropGap(raw: string): Promise<void> {
    const gaps = this.#lists.get(GAPS_KEY, this.#now());
    const i = gaps?.indexOf(raw) ?? -1;
    if (i >= 0) gaps?.splice(i, 1);
  }

  async pending(): Promise<number> {
    return this.#leases.size;
  }

  /**
   * Every turn this store holds that is not finished (running, handed back,
   * or a retry waiting for its time), with the delivery it keeps: what ends
   * with the process, since no other copy shares this store.
   */
  unfinished(): { key: string; body: string; state: string; ambiguous: boolean }[] {
    return [...this.#leases.keys()].flatMap((key) => {
      const record = this.#record(key);
      const open = record?.state === 'claimed' || record?.state === 'posting' || record?.state === 'retry';
      return open && record.body !== undefined ? [{ key, body: record.body, state: record.state, ambiguous: record.ambiguous === true }] : [];
    });
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
      out.push(deadLetterFrom({ ...record, dead_at: at }, key));
    }
    return out;
  }

  async replayDead(key: string, owner: ClaimOwner, leaseMs: number): Promise<Takeover | undefined> {
    const record = this.#record(key);
    if (!record || record.state !== 'dead' || record.body === undefined) return undefined;
    this.#dead.delete(key);
    return this.#take(key, { ...record, attempts: 0, deaths: 0, first_at: this.#now(), ambiguous: true }, owner, leaseMs);
  }

  async dropDead(key: string): Promise<boolean> {
    const record = this.#record(key);
    if (!record || record.state !== 'dead') return false;
    const { body: _body, ...rest } = record;
    this.#rewrite(key, { ...rest, state: 'dropped' }, L.claimTtlSeconds * 1000);
    this.#dead.delete(key);
    return true;
  }

  async lock(key: string, ttlSeconds: number, holder: string): Promise<boolean> {
    const now = this.#now();
    const held = this.#live(key, now);
    if (held !== undefined && held !== holder) return false;
    this.#set(key, holder, ttlSeconds * 1000, now);
    return true;
  }

  async unlock(key: string, holder: string): Promise<void> {
    if (this.#live(key, this.#now()) === holder) this.#entries.delete(key);
  }

  async note(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.#set(key, value, ttlSeconds * 1000, this.#now());
  }

  async noteNewest(key: string, value: string, order: string, ttlSeconds: number): Promise<boolean> {
    const now = this.#now();
    const kept = this.#live(newestOrderKey(key), now);
    // As the script's Lua comparison; orders are digits of one width, so any collation sorts them alike.
    if (kept !== undefined && kept > order) return false;
    this.#set(key, value, ttlSeconds * 1000, now);
    this.#set(newestOrderKey(key), order, ttlSeconds * 1000, now);
    return true;
  }

  async tally(key: string, member: string, ttlSeconds: number): Promise<number> {
    const now = this.#now();
    const members = this.#lists.get(key, now);
    if (members === undefined) {
      this.#lists.set(key, [member], now + Math.max(1, Math.ceil(ttlSeconds)) * 1000);
      return 1;
    }
    // The window does not slide: its expiry is its first member's (the script's EXPIRE only when none is set).
    if (!members.includes(member)) this.#lists.keep(key, [...members, member]);
    return this.#lists.get(key, now)?.length ?? 0;
  }

  async read(key: string): Promise<string | null> {
    return this.#live(key, this.#now()) ?? null;
  }

  async readHash(key: string): Promise<Record<string, string>> {
    return Object.fromEntries(this.#hashes.get(key, this.#now()) ?? []);
  }

  /** HSET then EXPIRE: the whole hash lives `ttlSeconds` from this write. */
  #hset(key: string, field: string, value: string, ttlSeconds: number): void {
    const now = this.#now();
    const hash = this.#hashes.get(key, now) ?? new Map<string, string>();
    hash.set(field, value);
    this.#hashes.set(key, hash, now + ttlSeconds * 1000);
  }

  /** LPUSH, LTRIM to `max`, EXPIRE: as the Upstash store's pipeline and the scripts' status lines. */
  async push(key: string, values: readonly string[], max: number): Promise<void> {
    if (values.length === 0) return;
    const now = this.#now();
    const list = [...[...values].reverse(), ...(this.#lists.get(key, now) ?? [])].slice(0, max);
    this.#lists.set(key, list, now + L.listTtlSeconds * 1000);
  }

  async range(key: string, count: number): Promise<string[]> {
    return (this.#lists.get(key, this.#now()) ?? []).slice(0, count);
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

  /** A step's result kept in the turn's steps hash, which lives as long as a claim, while `token` holds the turn (KEEP_STEP_SCRIPT). */
  async keepStep(turnKey: string, name: string, json: string, token?: number): Promise<EndReply> {
    if (token !== undefined && !this.#missing(turnKey) && !owns(this.#record(turnKey), token)) return 'lost';
    this.#hset(stepsKey(turnKey), name, json, L.claimTtlSeconds);
    return 'ok';
  }

  async loadSteps(turnKey: string): Promise<Record<string, string>> {
    return this.readHash(stepsKey(turnKey));
  }

  /** Conversation order: turn key -> the store's time of its claim, as the script's sorted set. */
  readonly #conversations = new Keyspace<Map<string, number>>();
  readonly #skipped = new Keyspace<Set<string>>();
  readonly #admitted = new Keyspace<Set<string>>();
  readonly #interrupted = new Keyspace<Set<string>>();

  /**
   * As CONVERSATION_SCRIPT: take (or keep) a place in claim order, drop the turns that ended, go when
   * nothing live is ahead or has gone already; skip the oldest waiting one past the bound; with
   * `interrupt`, mark the running turns before this one interrupted and skip every waiting one before it.
   */
  async enterConversation(conversation: string, turnKey: string, maxWaiting: number, interrupt = false): Promise<ConversationPlace> {
    const now = this.#now();
    const keys = conversationKeys(conversation);
    const until = now + L.conversationTtlSeconds * 1000;
    const skipped = this.#skipped.get(keys.skipped, now) ?? new Set<string>();
    if (skipped.has(turnKey)) return { kind: 'skipped', ahead: 0 };
    const order = this.#conversations.get(keys.order, now) ?? new Map<string, number>();
    const admitted = this.#admitted.get(keys.admitted, now) ?? new Set<string>();
    const interrupted = this.#interrupted.get(keys.interrupted, now) ?? new Set<string>();
    if (!order.has(turnKey)) order.set(turnKey, this.#record(turnKey)?.first_at ?? now);
    const gone = admitted.has(turnKey);
    const interrupting = interrupt && !gone;
    let running = 0;
    let marked = 0;
    const waiting: string[] = [];
    let before = true;
    const sorted = [...order].sort(([ka, a], [kb, b]) => a - b || (ka < kb ? -1 : ka > kb ? 1 : 0));
    for (const [member] of sorted) {
      if (member === turnKey) {
        before = false;
        continue;
      }
      if (!isLive(this.#record(member)?.state)) {
        order.delete(member);
        admitted.delete(member);
        interrupted.delete(member);
      } else if (admitted.has(member)) {
        running += 1;
        if (interrupting && before) {
          interrupted.add(member);
          marked += 1;
        }
      } else if (before) waiting.push(member);
    }
    if (marked > 0) this.#interrupted.set(keys.interrupted, interrupted, until);
    let skippedNow: string | undefined;
    const bound = interrupting ? 1 : maxWaiting;
    while (!gone && waiting.length >= bound && waiting.length > 0) {
      skippedNow = waiting.shift()!;
      skipped.add(skippedNow);
      order.delete(skippedNow);
      this.#skipped.set(keys.skipped, skipped, until);
      if (!interrupting) break;
    }
    const ahead = running + waiting.length;
    const go = gone || ahead === 0;
    if (go) {
      admitted.add(turnKey);
      this.#admitted.set(keys.admitted, admitted, until);
    }
    this.#conversations.set(keys.order, order, until);
    return { kind: go ? 'go' : 'wait', ahead: gone ? 0 : ahead, ...(skippedNow ? { skippedNow } : {}), ...(marked > 0 ? { interrupting: marked } : {}) };
  }

  async conversationInterrupted(conversation: string, turnKey: string): Promise<boolean> {
    return this.#interrupted.get(conversationKeys(conversation).interrupted, this.#now())?.has(turnKey) ?? false;
  }
}
