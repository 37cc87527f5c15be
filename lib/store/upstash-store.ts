/**
 * The shared store on Upstash Redis (REST). Every call is bounded twice: a
 * fresh fuse per command inside the client, and the adapter's own deadline
 * around the whole call. Nothing here throws into a request.
 */
import type { UpstashSettings } from '../config/index.js';
import { realSleep, withDeadline, type Sleep } from '../time/index.js';
import { claimDeadlineMs, DEFAULT_CLAIM_BUDGET, type ClaimBudget } from './budget.js';
import { classifySetNxReply, combineOutcomes, CLAIMED, failOpen, type ClaimOutcome } from './outcome.js';
import { LEASES_KEY, type LeaseReply, type Takeover } from './lease.js';
import { CLAIM_SCRIPT, COMMIT_SCRIPT, FINISH_SCRIPT, RENEW_SCRIPT, TAKEOVER_SCRIPT } from './lease-scripts.js';
import { claimNonce, encodeClaim, type ClaimOwner } from './record.js';
import type { StoreReporter } from './reporter.js';
import { CLAIM_TTL_SECONDS, type ClaimStore, type LeaseRequest, type StoreHealth } from './store.js';
import { createUpstashClient, type ClaimClient } from './upstash-client.js';

export interface UpstashStoreOptions {
  /** Where the database is; ignored when `client` is given. */
  settings?: UpstashSettings;
  /** A ready client (tests); built from `settings` and `budget.attemptMs` otherwise. */
  client?: ClaimClient;
  /** @default DEFAULT_CLAIM_BUDGET (2 x 450 ms + 50 ms) */
  budget?: Partial<ClaimBudget>;
  /** Receives every fail-open claim and failed write. */
  reporter: StoreReporter;
  /** @default 24 h */
  ttlSeconds?: number;
  /** @default Date.now */
  now?: () => number;
  /** @default setTimeout-based */
  sleep?: Sleep;
  /** @default crypto.randomUUID */
  nonce?: () => string;
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return `timeout: ${error.message}`;
    return `${error.name}: ${error.message}`.slice(0, 200);
  }
  return `thrown ${typeof error}`;
}

export class UpstashClaimStore implements ClaimStore {
  readonly kind = 'upstash' as const;
  readonly budget: ClaimBudget;
  readonly deadlineMs: number;
  readonly #client: ClaimClient;
  readonly #report: StoreReporter;
  readonly #ttlSeconds: number;
  readonly #now: () => number;
  readonly #sleep: Sleep;
  readonly #nonce: () => string;

  constructor(options: UpstashStoreOptions) {
    this.budget = { ...DEFAULT_CLAIM_BUDGET, ...options.budget };
    this.deadlineMs = claimDeadlineMs(this.budget);
    if (options.client) this.#client = options.client;
    else if (options.settings) this.#client = createUpstashClient(options.settings, this.budget.attemptMs);
    else throw new TypeError('UpstashClaimStore needs `settings` or `client`');
    this.#report = options.reporter;
    this.#ttlSeconds = options.ttlSeconds ?? CLAIM_TTL_SECONDS;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? realSleep;
    this.#nonce = options.nonce ?? (() => crypto.randomUUID());
  }

  /** SET NX every key in one request; the raw replies, in key order. */
  async #setNx(keys: readonly string[], value: string, lease: LeaseRequest | undefined): Promise<unknown[]> {
    if (lease) {
      const replies = await this.#client.eval(CLAIM_SCRIPT, [...keys, LEASES_KEY], [value, this.#ttlSeconds, lease.leaseMs]);
      return Array.isArray(replies) && replies.length === keys.length ? replies : [replies];
    }
    const options = { nx: true, ex: this.#ttlSeconds } as const;
    if (keys.length === 1) return [await this.#client.set(keys[0]!, value, options)];
    const pipe = this.#client.pipeline();
    for (const key of keys) pipe.set(key, value, options);
    const replies = await pipe.exec<unknown[]>({ keepErrors: true });
    return replies.map((r) => (r.error ? { error: r.error } : r.result));
  }

  /**
   * A `null` on a second attempt may be our own first write, whose reply was
   * lost: it is ours when the stored nonce is the one we wrote.
   */
  async #ownedByUs(keys: readonly string[], nonce: string): Promise<boolean> {
    const stored = await Promise.all(keys.map((k) => this.#client.get<string>(k)));
    return stored.every((value) => claimNonce(value) === nonce);
  }

  async #attempt(keys: readonly string[], owner: ClaimOwner, lease: LeaseRequest | undefined): Promise<ClaimOutcome> {
    const nonce = this.#nonce();
    const value = encodeClaim(owner, this.#now(), nonce, lease?.body);
    const claimed: ClaimOutcome = lease ? { kind: 'claimed', token: 1 } : CLAIMED;
    let lastReason = 'no attempt made';
    for (let attempt = 1; attempt <= this.budget.attempts; attempt++) {
      try {
        const replies = await this.#setNx(keys, value, lease);
        const outcome = combineOutcomes(replies.map(classifySetNxReply));
        if (outcome.kind === 'duplicate' && attempt > 1) {
          const taken = keys.filter((_, i) => replies[i] === null);
          if (await this.#ownedByUs(taken, nonce)) return claimed;
        }
        return outcome.kind === 'claimed' ? claimed : outcome;
      } catch (error) {
        lastReason = reasonOf(error);
        if (attempt < this.budget.attempts) await this.#sleep(this.budget.backoffMs);
      }
    }
    return failOpen(lastReason);
  }

  async claim(keys: readonly string[], owner: ClaimOwner, lease?: LeaseRequest): Promise<ClaimOutcome> {
    const started = this.#now();
    const outcome = await withDeadline(this.#attempt(keys, owner, lease), this.deadlineMs, () =>
      failOpen(`deadline: no answer within ${this.deadlineMs} ms`),
    );
    if (outcome.kind === 'fail-open') {
      this.#report({ op: 'claim', reason: outcome.reason, key: keys[0], elapsedMs: this.#now() - started });
    }
    return outcome;
  }

  /** A single bounded command; undefined when it failed (and was reported). */
  async #bounded<T>(op: 'note' | 'window' | 'ping' | 'lease', key: string, run: () => Promise<T>): Promise<T | undefined> {
    const failed = Symbol('failed');
    const result = await withDeadline<T | typeof failed>(
      run().catch((error: unknown) => {
        this.#report({ op, key, reason: reasonOf(error) });
        return failed;
      }),
      this.budget.attemptMs + 50,
      () => {
        this.#report({ op, key, reason: `deadline: no answer within ${this.budget.attemptMs + 50} ms` });
        return failed;
      },
    );
    return result === failed ? undefined : result;
  }

  async note(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.#bounded('note', key, () => this.#client.set(key, value, { ex: ttlSeconds }));
  }

  async read(key: string): Promise<string | null | undefined> {
    const value = await this.#bounded('window', key, () => this.#client.get<string>(key));
    return value === undefined ? undefined : typeof value === 'string' ? value : null;
  }

  async write(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.#bounded('window', key, () => this.#client.set(key, value, { px: Math.max(1, Math.ceil(ttlMs)) }));
    return reply === 'OK';
  }

  async #lease(key: string, script: string, args: (string | number)[]): Promise<LeaseReply> {
    const reply = await this.#bounded('lease', key, () => this.#client.eval(script, [key, LEASES_KEY], args));
    if (reply === undefined) return 'unreachable';
    return reply === 1 ? 'ok' : 'lost';
  }

  renew(key: string, token: number, leaseMs: number): Promise<LeaseReply> {
    return this.#lease(key, RENEW_SCRIPT, [token, leaseMs]);
  }

  commit(key: string, token: number, leaseMs: number): Promise<LeaseReply> {
    return this.#lease(key, COMMIT_SCRIPT, [token, leaseMs]);
  }

  finish(key: string, token: number, replyTs: string | null): Promise<LeaseReply> {
    return this.#lease(key, FINISH_SCRIPT, [token, replyTs ?? '', CLAIM_TTL_SECONDS]);
  }

  async takeOver(owner: ClaimOwner, leaseMs: number, limit: number): Promise<Takeover[]> {
    const reply = await this.#bounded('lease', LEASES_KEY, () =>
      this.#client.eval(TAKEOVER_SCRIPT, [LEASES_KEY], [owner.instance, owner.role, leaseMs, limit]),
    );
    if (!Array.isArray(reply)) return [];
    return reply.flatMap((item) => {
      try {
        const t = JSON.parse(String(item)) as Takeover;
        return typeof t.key === 'string' && typeof t.body === 'string' ? [t] : [];
      } catch {
        return [];
      }
    });
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
    const values = await this.#bounded('note', key, () => this.#client.lrange<string>(key, 0, count - 1));
    return Array.isArray(values) ? values.map(String) : [];
  }

  async ping(): Promise<StoreHealth> {
    const failed = Symbol('failed');
    let reason = '';
    const reply = await withDeadline<unknown>(
      this.#client.ping().catch((error: unknown) => {
        reason = reasonOf(error);
        return failed;
      }),
      this.budget.attemptMs + 50,
      () => {
        reason = `deadline: no answer within ${this.budget.attemptMs + 50} ms`;
        return failed;
      },
    );
    if (reply === 'PONG') return { ok: true };
    return { ok: false, reason: reason || `unexpected PING reply ${JSON.stringify(reply)}` };
  }
}
