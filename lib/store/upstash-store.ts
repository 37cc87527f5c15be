/**
 * The shared store on Upstash Redis (REST). Every call is bounded twice: a
 * fresh fuse per HTTP request inside the requester, and the store's own
 * deadline around the whole call. Nothing here throws into a request.
 *
 * Cost (Upstash bills per command; a script is one): a mention is a claim and
 * a finish, plus one renewal per 3 s of a long turn. An idle copy makes one
 * look (takeover + heartbeat) per `reaperMs`.
 */
import { createHash } from 'node:crypto';
import pRetry from 'p-retry';
import type { UpstashSettings } from './roles.js';
import { withDeadline } from '../time/index.js';
import { claimDeadlineMs, DEFAULT_CLAIM_BUDGET, type ClaimBudget } from './budget.js';
import { DEAD_KEY, GAPS_KEY, LEASES_KEY, SERVED_KEY, STATUS_KEYS, WINDOWS_KEY } from './keys.js';
import { parseGap, parseTakeover, type Look, type LeaseReply, type ReleaseReply, type Takeover } from './lease.js';
import { Observed } from './observed.js';
import { WindowBook } from './window-book.js';
import { classifyClaimReply, failOpen, type ClaimOutcome } from './outcome.js';
import { encodeAlias, encodeClaim, type ClaimOwner, type LeaseRequest } from './record.js';
import type { StoreReporter } from './reporter.js';
import { CLAIM_TTL_SECONDS, DEAD_TTL_SECONDS, type DeadLetter, type SharedStore, type StoreHealth, type TurnLine } from './roles.js';
import * as S from './scripts.js';
import { isSealed, type Sealer } from './seal.js';
import { createUpstashClient, type StoreClient } from './upstash-client.js';

export interface UpstashStoreOptions {
  /** Where the database is; ignored when `client` is given. */
  settings?: UpstashSettings;
  /** A ready client (tests); built from `settings` and `budget.attemptMs` otherwise. */
  client?: StoreClient;
  /** @default DEFAULT_CLAIM_BUDGET (2 x 450 ms + 50 ms) */
  budget?: Partial<ClaimBudget>;
  /** Receives every fail-open claim and failed write. */
  reporter: StoreReporter;
  /** @default 24 h */
  ttlSeconds?: number;
  /** @default Date.now */
  now?: () => number;
  /** @default crypto.randomUUID */
  nonce?: () => string;
  /** A silence in serving longer than this is recorded for the catch-up sweep (Slack's retry window); 0: none. @default 0 */
  gapMs?: number;
  /**
   * Seals every body before it leaves this process and opens it on a takeover
   * (createStore always passes one). Without it bodies are stored in clear:
   * only for tests of the store's own semantics.
   */
  sealer?: Sealer;
}

/** Why a call failed, in words safe for a log: a name and a message, never a command or a stored value. */
function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return `timeout: ${error.message}`;
    const message = error.message.split(', command was:')[0] ?? '';
    return `${error.name}: ${message}`.slice(0, 160);
  }
  return `thrown ${typeof error}`;
}

type Op = 'claim' | 'note' | 'window' | 'lease' | 'ping' | 'read';

export class UpstashStore implements SharedStore {
  readonly kind = 'upstash' as const;
  readonly budget: ClaimBudget;
  readonly deadlineMs: number;
  readonly windows: WindowBook;
  readonly #client: StoreClient;
  readonly #report: StoreReporter;
  readonly #ttlSeconds: number;
  readonly #now: () => number;
  readonly #nonce: () => string;
  readonly #observed: Observed;
  readonly #sealer: Sealer | undefined;
  readonly #gapMs: number;

  constructor(options: UpstashStoreOptions) {
    this.#sealer = options.sealer;
    this.#gapMs = options.gapMs ?? 0;
    this.budget = { ...DEFAULT_CLAIM_BUDGET, ...options.budget };
    this.deadlineMs = claimDeadlineMs(this.budget);
    if (options.client) this.#client = options.client;
    else if (options.settings) this.#client = createUpstashClient(options.settings, this.budget.attemptMs);
    else throw new TypeError('UpstashStore needs `settings` or `client`');
    this.#report = options.reporter;
    this.#ttlSeconds = options.ttlSeconds ?? CLAIM_TTL_SECONDS;
    this.#now = options.now ?? Date.now;
    this.#nonce = options.nonce ?? (() => crypto.randomUUID());
    this.#observed = new Observed(this.#now);
    this.windows = new WindowBook(this.#now, (field, reopenAt) => {
      void this.#bounded('window', WINDOWS_KEY, () => this.#client.hset(WINDOWS_KEY, { [field]: reopenAt }));
    });
  }

  readonly #shas = new Map<string, string>();

  /**
   * A script by its SHA (40 bytes on the wire instead of the whole script),
   * sent whole once when Redis does not know it yet (NOSCRIPT, as after a restart).
   */
  async #run(script: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    let sha = this.#shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script).digest('hex');
      this.#shas.set(script, sha);
    }
    try {
      return await this.#client.evalsha(sha, keys, args);
    } catch (error) {
      if (!(error instanceof Error) || !/NOSCRIPT/i.test(error.message)) throw error;
      return this.#client.eval(script, keys, args);
    }
  }

  async claim(keys: readonly string[], owner: ClaimOwner, lease?: LeaseRequest): Promise<ClaimOutcome> {
    const started = this.#now();
    const nonce = this.#nonce();
    const primary = encodeClaim(owner, started, nonce, lease && this.#sealer ? { ...lease, body: this.#sealer.seal(lease.body) } : lease);
    const alias = encodeAlias(owner, started, nonce);
    const args = [primary, alias, this.#ttlSeconds, lease?.leaseMs ?? 0, nonce, this.#gapMs];
    // Only a thrown request is tried again: a reply, whatever it says, is the answer.
    // The same nonce on every attempt lets a retry recognise its own first write ('mine').
    const attempt = () => this.#run(S.CLAIM_SCRIPT, [...keys, LEASES_KEY, WINDOWS_KEY, SERVED_KEY, GAPS_KEY], args);
    const run = pRetry(attempt, { retries: this.budget.attempts - 1, minTimeout: this.budget.backoffMs, factor: 1, randomize: false })
      .then((reply) => {
        const { outcome, windows } = classifyClaimReply(reply, lease ? 1 : undefined);
        this.windows.learn(windows);
        return outcome;
      })
      .catch((error: unknown) => failOpen(reasonOf(error)));
    const outcome = await withDeadline(run, this.deadlineMs, () => failOpen(`deadline: no answer within ${this.deadlineMs} ms`));
    if (outcome.kind === 'fail-open') {
      this.#observed.failed(outcome.reason);
      this.#report({ op: 'claim', reason: outcome.reason, key: keys[0], elapsedMs: this.#now() - started });
    } else this.#observed.ok();
    return outcome;
  }

  /** One bounded command; undefined when it failed (and was reported). */
  async #bounded<T>(op: Op, key: string, run: () => Promise<T>): Promise<T | undefined> {
    const failed = Symbol('failed');
    const limit = this.budget.attemptMs + 50;
    const result = await withDeadline<T | typeof failed>(
      run().catch((error: unknown) => {
        this.#fail(op, key, reasonOf(error));
        return failed;
      }),
      limit,
      () => {
        this.#fail(op, key, `deadline: no answer within ${limit} ms`);
        return failed;
      },
    );
    if (result === failed) return undefined;
    this.#observed.ok();
    return result;
  }

  #fail(op: Op, key: string, reason: string): void {
    this.#observed.failed(reason);
    this.#report({ op, key, reason });
  }

  async #lease(keys: string[], script: string, args: (string | number)[]): Promise<unknown> {
    return this.#bounded('lease', keys[0] ?? LEASES_KEY, () => this.#run(script, keys, args));
  }

  async renew(leases: readonly { key: string; token: number; confirmed?: number }[], leaseMs: number): Promise<LeaseReply[]> {
    if (leases.length === 0) return [];
    const args = [leaseMs, ...leases.flatMap((l) => [l.token, l.confirmed ?? ''])];
    const reply = await this.#lease([LEASES_KEY, ...leases.map((l) => l.key)], S.RENEW_SCRIPT, args);
    if (!Array.isArray(reply) || reply.length !== leases.length) return leases.map(() => 'unreachable');
    return reply.map((r) => (r === 1 ? 'ok' : 'lost'));
  }

  async markStream(key: string, token: number, ts: string): Promise<LeaseReply> {
    return replyOf(await this.#lease([key], S.STREAM_SCRIPT, [token, ts]));
  }

  async commit(key: string, token: number, leaseMs: number): Promise<LeaseReply> {
    return replyOf(await this.#lease([key, LEASES_KEY], S.COMMIT_SCRIPT, [token, leaseMs]));
  }

  async finish(key: string, token: number, replyTs: string | null, turn?: TurnLine): Promise<LeaseReply> {
    const keys = [key, LEASES_KEY, STATUS_KEYS.turns, STATUS_KEYS.failovers, STATUS_KEYS.cloudLastServed];
    const args = [token, replyTs ?? '', CLAIM_TTL_SECONDS, turn?.line ?? '', turn?.cloud ? '1' : '0', turn?.at ?? ''];
    return replyOf(await this.#lease(keys, S.FINISH_SCRIPT, args));
  }

  async release(key: string, token: number, f: Parameters<SharedStore['release']>[2]): Promise<ReleaseReply> {
    const args = [token, f.delayMs, f.reason, f.ambiguous ? '1' : '0', f.policy.attempts, f.policy.windowMs, DEAD_TTL_SECONDS, f.turn?.line ?? '', f.free ? '1' : '0'];
    const reply = await this.#lease([key, LEASES_KEY, DEAD_KEY, STATUS_KEYS.turns], S.RELEASE_SCRIPT, args);
    if (reply === undefined) return 'unreachable';
    return reply === 1 ? 'retry' : reply === 2 ? 'dead' : 'lost';
  }

  async deadLetter(key: string, token: number, reason: string, turn?: TurnLine): Promise<LeaseReply> {
    const args = [token, reason, DEAD_TTL_SECONDS, turn?.line ?? ''];
    return replyOf(await this.#lease([key, LEASES_KEY, DEAD_KEY, STATUS_KEYS.turns], S.DEAD_SCRIPT, args));
  }

  async look(owner: ClaimOwner, leaseMs: number, limit: number, heartbeat?: string): Promise<Look | undefined> {
    const reply = await this.#lease([LEASES_KEY, STATUS_KEYS.copies, SERVED_KEY, GAPS_KEY], S.LOOK_SCRIPT, [owner.instance, owner.role, leaseMs, limit, heartbeat ?? '']);
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') return undefined;
    const taken = reply.slice(4).flatMap((item) => {
      const t = parseTakeover(item);
      return t ? [this.#opened(t)] : [];
    });
    return { taken, nextDueMs: reply[0] < 0 ? null : reply[0], sinceServedMs: reply[1] < 0 ? null : reply[1], gap: parseGap(reply[2]), ...(typeof reply[3] === 'number' ? { nowMs: reply[3] } : {}) };
  }

  async dropGap(raw: string): Promise<void> {
    await this.#bounded('note', GAPS_KEY, () => this.#client.lrem(GAPS_KEY, 1, raw));
  }

  async pending(): Promise<number | undefined> {
    const reply = await this.#bounded('read', LEASES_KEY, () => this.#client.zcard(LEASES_KEY));
    return typeof reply === 'number' ? reply : undefined;
  }

  async listDead(limit: number): Promise<DeadLetter[] | undefined> {
    const reply = await this.#bounded('read', DEAD_KEY, () => this.#run(S.DEAD_LIST_SCRIPT, [DEAD_KEY], [limit]));
    return Array.isArray(reply) ? reply.flatMap((item) => deadLetterOf(item) ?? []) : undefined;
  }

  async replayDead(key: string, owner: ClaimOwner, leaseMs: number): Promise<Takeover | undefined> {
    const reply = await this.#lease([LEASES_KEY, key, DEAD_KEY], S.REPLAY_SCRIPT, [owner.instance, owner.role, leaseMs]);
    const t = Array.isArray(reply) && reply.length === 1 ? parseTakeover(reply[0]) : undefined;
    return t && this.#opened(t);
  }

  /**
   * A taken turn's body in clear; '' when no key here opens it (the runner
   * dead-letters it). A body stored in clear by a copy older than sealing is
   * passed on as it is, so a rolling upgrade loses nothing.
   */
  #opened(t: Takeover): Takeover {
    if (!this.#sealer || !isSealed(t.body)) return t;
    return { ...t, body: this.#sealer.open(t.body) ?? '' };
  }

  async dropDead(key: string): Promise<boolean> {
    return (await this.#lease([key, DEAD_KEY], S.DROP_SCRIPT, [CLAIM_TTL_SECONDS])) === 1;
  }

  async lock(key: string, ttlSeconds: number, holder: string): Promise<boolean | undefined> {
    const reply = await this.#bounded('note', key, () => this.#run(S.LOCK_SCRIPT, [key], [holder, Math.max(1, Math.ceil(ttlSeconds))]));
    return reply === undefined ? undefined : Number(reply) === 1;
  }

  async unlock(key: string, holder: string): Promise<void> {
    await this.#bounded('note', key, () => this.#run(S.LOCK_SCRIPT, [key], [holder, 0]));
  }

  async note(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.#bounded('note', key, () => this.#client.set(key, value, { ex: ttlSeconds }));
  }

  async read(key: string): Promise<string | null | undefined> {
    const value = await this.#bounded('read', key, () => this.#client.get<string>(key));
    return value === undefined ? undefined : typeof value === 'string' ? value : null;
  }

  async readHash(key: string): Promise<Record<string, string> | undefined> {
    const value = await this.#bounded('read', key, () => this.#client.hgetall<Record<string, string>>(key));
    if (value === undefined) return undefined;
    if (value === null) return {};
    // Without deserialisation the SDK hands back [field, value, ...] or an object, by version.
    if (Array.isArray(value)) {
      const out: Record<string, string> = {};
      for (let i = 0; i + 1 < value.length; i += 2) out[String(value[i])] = String(value[i + 1]);
      return out;
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  }

  async push(key: string, values: readonly string[], max: number): Promise<void> {
    if (values.length === 0) return;
    await this.#bounded('note', key, async () => {
      const pipe = this.#client.pipeline();
      pipe.lpush(key, ...values);
      pipe.ltrim(key, 0, max - 1);
      pipe.expire(key, 2 * CLAIM_TTL_SECONDS);
      return pipe.exec();
    });
  }

  async range(key: string, count: number): Promise<string[]> {
    const values = await this.#bounded('read', key, () => this.#client.lrange<string>(key, 0, count - 1));
    return Array.isArray(values) ? values.map(String) : [];
  }

  async ping(): Promise<StoreHealth> {
    const reply = await this.#bounded('ping', 'PING', () => this.#client.ping());
    if (reply === 'PONG') return { ok: true };
    const last = this.#observed.get();
    return { ok: false, reason: last.ok ? `unexpected PING reply` : (last.reason ?? 'no answer') };
  }

  observed(): StoreHealth & { at: number | null } {
    return this.#observed.get();
  }
}

function replyOf(reply: unknown): LeaseReply {
  if (reply === undefined) return 'unreachable';
  return reply === 1 ? 'ok' : 'lost';
}

function deadLetterOf(item: unknown): DeadLetter | undefined {
  try {
    const r = JSON.parse(String(item)) as Record<string, unknown>;
    if (typeof r.key !== 'string') return undefined;
    return {
      key: r.key,
      eventId: typeof r.event_id === 'string' ? r.event_id : r.key.split(':').pop() ?? r.key,
      channel: typeof r.channel === 'string' ? r.channel : null,
      reason: typeof r.reason === 'string' ? r.reason : 'unknown',
      attempts: typeof r.attempts === 'number' ? r.attempts : 1,
      at: new Date(typeof r.dead_at === 'number' ? r.dead_at : 0).toISOString(),
    };
  } catch {
    return undefined;
  }
}

export { deadLetterOf };
