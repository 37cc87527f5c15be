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
import { claimDeadlineMs, DEFAULT_CLAIM_BUDGET, DEFAULT_COMMAND_MS, FUSE_SLACK_MS, type ClaimBudget } from './budget.js';
import { usageKey, DEAD_KEY, EVENT_KEYS_MATCH, GAPS_KEY, LEASES_INDEXED_SCORE, LEASES_KEY, SERVED_KEY, STATUS_KEYS, WINDOWS_KEY } from './keys.js';
import {
  parseDeadLetter,
  parseGap,
  parseTakeover,
  type EndReply,
  type Look,
  type LeaseReply,
  type ReleaseReply,
  type RestoreDetail,
  type Takeover,
} from './lease.js';
import { Observed } from './observed.js';
import { WindowBook } from './window-book.js';
import { classifyClaimReply, failOpen, type ClaimOutcome } from './outcome.js';
import { encodeAlias, encodeClaim, encodeRestored, type ClaimOwner, type LeaseRequest } from './record.js';
import type { StoreReporter } from './reporter.js';
import type { ClaimOptions, ConfirmReply, DeadLetter, LookOptions, SharedStore, StoreHealth, TurnLine } from './roles.js';
import { STORE_LIMITS as L } from './limits.js';
import * as S from './scripts.js';
import type { InputOf, Script, ScriptInput } from './script.js';
import { isSealed, type Sealer } from './seal.js';
import { createUpstashClient, type StoreClient } from './upstash-client.js';
import { conversationKeys, newestOrderKey, stepsKey } from './keys.js';
import type { ConversationPlace } from './roles.js';

export interface UpstashStoreOptions {
  /** Where the database is; ignored when `client` is given. */
  settings?: UpstashSettings;
  /** A ready client for every command (tests); otherwise two are built from `settings`: one per fuse. */
  client?: StoreClient;
  /** The claim's fuse and attempts (the ack path). @default DEFAULT_CLAIM_BUDGET (2 x 450 ms + 50 ms) */
  budget?: Partial<ClaimBudget>;
  /** The fuse of every command but the claim (AUTOHUB_STORE_ATTEMPT_MS): they are off the ack path. @default DEFAULT_COMMAND_MS (2,000 ms) */
  commandMs?: number;
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
  /** The fuse of every command but the claim. */
  readonly commandMs: number;
  readonly windows: WindowBook;
  /** Every command but the claim, each with a fuse of `commandMs`. */
  readonly #client: StoreClient;
  /** The claim alone, each attempt with a fuse of `budget.attemptMs`. */
  readonly #claimClient: StoreClient;
  readonly #report: StoreReporter;
  readonly #ttlSeconds: number;
  readonly #now: () => number;
  readonly #nonce: () => string;
  readonly #observed: Observed;
  readonly #sealer: Sealer | undefined;
  readonly #gapMs: number;
  /** Where a rebuild of the lease set that did not finish in one look goes on. */
  #reindexCursor = '0';

  constructor(options: UpstashStoreOptions) {
    this.#sealer = options.sealer;
    this.#gapMs = options.gapMs ?? 0;
    this.budget = { ...DEFAULT_CLAIM_BUDGET, ...options.budget };
    this.deadlineMs = claimDeadlineMs(this.budget);
    this.commandMs = options.commandMs ?? DEFAULT_COMMAND_MS;
    const count = (n: number) => void (this.#sent += n);
    if (options.client) this.#client = this.#claimClient = options.client;
    else if (options.settings) {
      this.#claimClient = createUpstashClient(options.settings, this.budget.attemptMs, count);
      this.#client = createUpstashClient(options.settings, this.commandMs, count);
    } else throw new TypeError('UpstashStore needs `settings` or `client`');
    this.#report = options.reporter;
    this.#ttlSeconds = options.ttlSeconds ?? L.claimTtlSeconds;
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
  async #run<K extends string, A extends string>(script: Script<K, A>, input: ScriptInput<K, A>, client = this.#client): Promise<unknown> {
    const { source } = script;
    const { keys, args } = script.layout(input);
    let sha = this.#shas.get(source);
    if (sha === undefined) {
      sha = createHash('sha1').update(source).digest('hex');
      this.#shas.set(source, sha);
    }
    try {
      return await client.evalsha(sha, keys, args);
    } catch (error) {
      if (!(error instanceof Error) || !/NOSCRIPT/i.test(error.message)) throw error;
      return client.eval(source, keys, args);
    }
  }

  async claim(keys: readonly string[], owner: ClaimOwner, lease?: LeaseRequest, options: ClaimOptions = {}): Promise<ClaimOutcome> {
    // Off the ack path, the claim has the other commands' fuse and client (nobody waits for it).
    const budget = options.offAckPath ? { ...this.budget, attemptMs: this.commandMs } : this.budget;
    const deadlineMs = options.offAckPath ? claimDeadlineMs(budget) : this.deadlineMs;
    const client = options.offAckPath ? this.#client : this.#claimClient;
    const started = this.#now();
    const nonce = options.nonce ?? this.#nonce();
    const primary = encodeClaim(owner, started, nonce, lease && this.#sealer ? { ...lease, body: this.#sealer.seal(lease.body) } : lease);
    const alias = encodeAlias(owner, started, nonce);
    // A conversation's turn takes its place in the thread's order in the claim itself (no command more),
    // and with `firstLook` makes its first look at the gate there too, when it is alone in that order.
    const conv = lease?.conversation === undefined ? undefined : conversationKeys(lease.conversation);
    const looks = conv !== undefined && options.firstLook === true;
    const order = conv === undefined ? [] : [conv.order, ...(looks ? [conv.skipped, conv.admitted, conv.interrupted] : [])];
    const input: InputOf<typeof S.CLAIM_SCRIPT> = {
      keys: { leases: LEASES_KEY, windows: WINDOWS_KEY, servedMark: SERVED_KEY, gapList: GAPS_KEY },
      restKeys: [...keys, ...order],
      args: {
        primaryRecord: primary,
        aliasRecord: alias,
        ttl: this.#ttlSeconds,
        leaseMs: lease?.leaseMs ?? 0,
        nonce,
        gapMs: this.#gapMs,
        inOrder: conv !== undefined ? '1' : '0',
        firstLook: looks ? '1' : '0',
      },
    };
    // Only a thrown request is tried again: a reply, whatever it says, is the answer.
    // The same nonce on every attempt lets a retry recognise its own first write ('mine').
    const attempt = () => this.#run(S.CLAIM_SCRIPT, input, client);
    const run = pRetry(attempt, { retries: budget.attempts - 1, minTimeout: budget.backoffMs, factor: 1, randomize: false })
      .then((reply) => {
        const { outcome, windows } = classifyClaimReply(reply, lease ? 1 : undefined);
        this.windows.learn(windows);
        return outcome;
      })
      .catch((error: unknown) => failOpen(reasonOf(error)));
    const outcome = await withDeadline(run, deadlineMs, () => failOpen(`deadline: no answer within ${deadlineMs} ms`));
    if (outcome.kind === 'fail-open') {
      this.#observed.failed(outcome.reason);
      this.#report({ op: 'claim', reason: outcome.reason, key: keys[0], elapsedMs: this.#now() - started });
    } else {
      this.#observed.ok();
      this.#report.answered?.();
    }
    // A leased claim that timed out may still land: its nonce lets the copy ask (`confirm`).
    return outcome.kind === 'fail-open' && lease ? { ...outcome, nonce } : outcome;
  }

  async confirm(key: string, nonce: string, leaseMs: number): Promise<ConfirmReply> {
    const reply = await this.#lease(key, S.CONFIRM_SCRIPT, { keys: { claimKey: key, leases: LEASES_KEY }, args: { nonce, leaseMs } });
    if (reply === undefined) return 'unreachable';
    return reply === 'mine' || reply === 'absent' || reply === 'held' || reply === 'lost' ? reply : 'unreachable';
  }

  /** One bounded command (off the ack path: the longer fuse); undefined when it failed (and was reported). */
  async #bounded<T>(op: Op, key: string, run: () => Promise<T>): Promise<T | undefined> {
    const failed = Symbol('failed');
    const limit = this.commandMs + FUSE_SLACK_MS;
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
    this.#report.answered?.();
    return result;
  }

  #fail(op: Op, key: string, reason: string): void {
    this.#observed.failed(reason);
    this.#report({ op, key, reason });
  }

  /** A lease script, bounded; `key` names the call in a failure's report. */
  async #lease<K extends string, A extends string>(key: string, script: Script<K, A>, input: ScriptInput<K, A>): Promise<unknown> {
    return this.#bounded('lease', key, () => this.#run(script, input));
  }

  async renew(leases: readonly { key: string; token: number; confirmed?: number }[], leaseMs: number): Promise<LeaseReply[]> {
    if (leases.length === 0) return [];
    const reply = await this.#lease(LEASES_KEY, S.RENEW_SCRIPT, {
      keys: { leases: LEASES_KEY },
      restKeys: leases.map((l) => l.key),
      args: { leaseMs },
      restArgs: leases.flatMap((l) => [l.token, l.confirmed ?? '']),
    });
    if (!Array.isArray(reply) || reply.length !== leases.length) return leases.map(() => 'unreachable');
    return reply.map((r) => (r === 1 ? 'ok' : r === 2 ? 'missing' : 'lost'));
  }

  async markStream(key: string, token: number, ts: string): Promise<LeaseReply> {
    return leaseReplyOf(await this.#lease(key, S.STREAM_SCRIPT, { keys: { claimKey: key }, args: { token, ts } }));
  }

  async commit(key: string, token: number, leaseMs: number): Promise<LeaseReply> {
    return leaseReplyOf(await this.#lease(key, S.COMMIT_SCRIPT, { keys: { claimKey: key, leases: LEASES_KEY }, args: { token, leaseMs } }));
  }

  async restore(key: string, token: number, owner: ClaimOwner, request: LeaseRequest, aliasKeys: readonly string[], detail?: RestoreDetail): Promise<EndReply> {
    const now = this.#now();
    const nonce = this.#nonce();
    const sealed = this.#sealer ? { ...request, body: this.#sealer.seal(request.body) } : request;
    const args = {
      token,
      record: encodeRestored(owner, now, nonce, token, sealed, detail),
      aliasRecord: encodeAlias(owner, now, nonce),
      ttl: this.#ttlSeconds,
      leaseMs: request.leaseMs,
    };
    return replyOf(await this.#lease(key, S.RESTORE_SCRIPT, { keys: { claimKey: key, leases: LEASES_KEY }, restKeys: aliasKeys, args }));
  }

  async finish(key: string, token: number, replyTs: string | null, turn?: TurnLine): Promise<LeaseReply> {
    const keys = {
      claimKey: key,
      leases: LEASES_KEY,
      turnLines: STATUS_KEYS.turns,
      failoverLines: STATUS_KEYS.failovers,
      cloudLastServed: STATUS_KEYS.cloudLastServed,
    };
    const args = { token, replyTs: replyTs ?? '', ttl: L.claimTtlSeconds, turnLine: turn?.line ?? '', byCloud: turn?.cloud ? '1' : '0', at: turn?.at ?? '' };
    return leaseReplyOf(await this.#lease(key, S.FINISH_SCRIPT, { keys, args }));
  }

  async release(key: string, token: number, f: Parameters<SharedStore['release']>[2]): Promise<ReleaseReply> {
    const args = {
      token,
      delayMs: f.delayMs,
      reason: f.reason,
      ambiguous: f.ambiguous ? '1' : '0',
      maxRuns: f.policy.attempts,
      windowMs: f.policy.windowMs,
      deadTtl: L.deadTtlSeconds,
      turnLine: f.turn?.line ?? '',
      freeRun: f.free ? '1' : '0',
    };
    const keys = { claimKey: key, leases: LEASES_KEY, deadSet: DEAD_KEY, turnLines: STATUS_KEYS.turns };
    const reply = await this.#lease(key, S.RELEASE_SCRIPT, { keys, args });
    if (reply === undefined) return 'unreachable';
    return reply === 1 ? 'retry' : reply === 2 ? 'dead' : reply === 3 ? 'missing' : 'lost';
  }

  async deadLetter(key: string, token: number, reason: string, turn?: TurnLine): Promise<LeaseReply> {
    const keys = { claimKey: key, leases: LEASES_KEY, deadSet: DEAD_KEY, turnLines: STATUS_KEYS.turns };
    const args = { token, reason, deadTtl: L.deadTtlSeconds, turnLine: turn?.line ?? '' };
    return leaseReplyOf(await this.#lease(key, S.DEAD_SCRIPT, { keys, args }));
  }

  /** Commands this copy sent to Upstash and has not yet added to the month's count (the look adds them, in the same script). */
  #sent = 0;

  async look(owner: ClaimOwner, leaseMs: number, limit: number, heartbeat?: string, options: LookOptions = {}): Promise<Look | undefined> {
    const { policy, running = [], told = [] } = options;
    const keys = {
      leases: LEASES_KEY,
      copies: STATUS_KEYS.copies,
      servedMark: SERVED_KEY,
      gapList: GAPS_KEY,
      deadSet: DEAD_KEY,
      usage: usageKey(new Date(this.#now())),
    };
    // What was sent since the last look (this look's own request is counted by the next one).
    const sent = this.#sent;
    this.#sent = 0;
    const args = {
      instance: owner.instance,
      role: owner.role,
      leaseMs,
      limit,
      heartbeat: heartbeat ?? '',
      maxRuns: policy?.attempts ?? 0,
      windowMs: policy?.windowMs ?? 0,
      deadTtl: L.deadTtlSeconds,
      sent,
    };
    const reply = await this.#lease(LEASES_KEY, S.LOOK_SCRIPT, { keys, args, restArgs: [...running, ...told.map((key) => `told:${key}`)] });
    // Not added (the look failed): counted with the next one.
    if (!Array.isArray(reply)) this.#sent += sent;
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') return undefined;
    const taken: Takeover[] = [];
    const dead: DeadLetter[] = [];
    for (const item of reply.slice(6)) {
      const text = String(item);
      if (text.startsWith('dead:')) {
        const letter = parseDeadLetter(text.slice('dead:'.length));
        if (letter) dead.push(letter);
      } else {
        const t = parseTakeover(text);
        if (t) taken.push(this.#opened(t));
      }
    }
    let nextDueMs = reply[0] < 0 ? null : reply[0];
    // The set lacks its "whole" mark: it was lost (or never built). Rebuilt from the records, at no cost to a look that finds it whole.
    if (reply[3] === 1) this.#reindexCursor = '0';
    const reindexed = reply[3] === 1 ? 0 : await this.#reindex(leaseMs);
    if (reindexed > 0) nextDueMs = Math.min(nextDueMs ?? leaseMs, leaseMs);
    return {
      taken,
      nextDueMs,
      sinceServedMs: reply[1] < 0 ? null : reply[1],
      gap: parseGap(reply[2]),
      dead,
      reindexed,
      ...(typeof reply[4] === 'number' ? { nowMs: reply[4] } : {}),
      ...(typeof reply[5] === 'number' && reply[5] >= 0 ? { monthCommands: reply[5] } : {}),
    };
  }

  /**
   * The lease set rebuilt from the event keys, by SCAN pages (client side:
   * a script names every key it touches) and a script per page that puts
   * each live turn missing from the set back in. Bounded per look; a page
   * that fails is scanned again by the next look. Resolves how many went back in.
   */
  async #reindex(leaseMs: number): Promise<number> {
    let added = 0;
    for (let page = 0; page < L.reindexPagesPerLook; page++) {
      const scanned = await this.#bounded('lease', LEASES_KEY, () =>
        this.#client.scan(this.#reindexCursor, { match: EVENT_KEYS_MATCH, count: L.reindexScanCount }),
      );
      if (!Array.isArray(scanned)) return added;
      const cursor = String(scanned[0]);
      const found = Array.isArray(scanned[1]) ? (scanned[1] as unknown[]).map(String) : [];
      const complete = cursor === '0';
      if (found.length > 0 || complete) {
        const n = await this.#lease(LEASES_KEY, S.REINDEX_SCRIPT, {
          keys: { leases: LEASES_KEY },
          restKeys: found,
          args: { leaseMs, complete: complete ? '1' : '0' },
        });
        if (typeof n !== 'number') return added;
        added += n;
      }
      this.#reindexCursor = cursor;
      if (complete) return added;
    }
    return added;
  }

  async dropGap(raw: string): Promise<void> {
    await this.#bounded('note', GAPS_KEY, () => this.#client.lrem(GAPS_KEY, 1, raw));
  }

  async pending(): Promise<number | undefined> {
    // Every member but the set's "whole" mark.
    const reply = await this.#bounded('read', LEASES_KEY, () => this.#client.zcount(LEASES_KEY, '-inf', `(${LEASES_INDEXED_SCORE}`));
    return typeof reply === 'number' ? reply : undefined;
  }

  async listDead(limit: number): Promise<DeadLetter[] | undefined> {
    const reply = await this.#bounded('read', DEAD_KEY, () => this.#run(S.DEAD_LIST_SCRIPT, { keys: { deadSet: DEAD_KEY }, args: { limit } }));
    return Array.isArray(reply) ? reply.flatMap((item) => parseDeadLetter(item) ?? []) : undefined;
  }

  async replayDead(key: string, owner: ClaimOwner, leaseMs: number): Promise<Takeover | undefined> {
    const reply = await this.#lease(LEASES_KEY, S.REPLAY_SCRIPT, {
      keys: { leases: LEASES_KEY, claimKey: key, deadSet: DEAD_KEY },
      args: { instance: owner.instance, role: owner.role, leaseMs },
    });
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
    return (await this.#lease(key, S.DROP_SCRIPT, { keys: { claimKey: key, deadSet: DEAD_KEY }, args: { ttl: L.claimTtlSeconds } })) === 1;
  }

  async lock(key: string, ttlSeconds: number, holder: string): Promise<boolean | undefined> {
    const reply = await this.#bounded('note', key, () =>
      this.#run(S.LOCK_SCRIPT, { keys: { lock: key }, args: { holder, ttl: Math.max(1, Math.ceil(ttlSeconds)) } }),
    );
    return reply === undefined ? undefined : Number(reply) === 1;
  }

  async unlock(key: string, holder: string): Promise<void> {
    await this.#bounded('note', key, () => this.#run(S.LOCK_SCRIPT, { keys: { lock: key }, args: { holder, ttl: 0 } }));
  }

  async note(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.#bounded('note', key, () => this.#client.set(key, value, { ex: ttlSeconds }));
  }

  async noteNewest(key: string, value: string, order: string, ttlSeconds: number): Promise<boolean | undefined> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const reply = await this.#bounded('note', key, () =>
      this.#run(S.NOTE_NEWEST_SCRIPT, { keys: { valueKey: key, orderKey: newestOrderKey(key) }, args: { value, order, ttl } }),
    );
    return reply === undefined ? undefined : Number(reply) === 1;
  }

  async tally(key: string, member: string, ttlSeconds: number): Promise<number | undefined> {
    const reply = await this.#bounded('note', key, () =>
      this.#run(S.TALLY_SCRIPT, { keys: { set: key }, args: { member, ttl: Math.max(1, Math.ceil(ttlSeconds)) } }),
    );
    return reply === undefined ? undefined : Number(reply);
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
      pipe.expire(key, L.listTtlSeconds);
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

  /** A step's result, sealed like a body, in one command (HSET + EXPIRE in a script), fenced by the turn's token. */
  async keepStep(turnKey: string, name: string, json: string, token?: number): Promise<EndReply> {
    const key = stepsKey(turnKey);
    const value = this.#sealer ? this.#sealer.seal(json) : json;
    return replyOf(
      await this.#bounded('note', key, () =>
        this.#run(S.KEEP_STEP_SCRIPT, { keys: { steps: key, claimKey: turnKey }, args: { name, result: value, ttl: L.claimTtlSeconds, token: token ?? '' } }),
      ),
    );
  }

  /** A turn's kept steps in one HGETALL; a result no key here opens is left out (that step runs again). */
  async loadSteps(turnKey: string): Promise<Record<string, string> | undefined> {
    const hash = await this.readHash(stepsKey(turnKey));
    if (hash === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(hash)) {
      const plain = this.#sealer && isSealed(value) ? this.#sealer.open(value) : value;
      if (plain !== undefined) out[name] = plain;
    }
    return out;
  }

  /** A turn's place in its conversation, in one script (CONVERSATION_SCRIPT). */
  async enterConversation(conversation: string, turnKey: string, maxWaiting: number, interrupt = false): Promise<ConversationPlace | undefined> {
    const { order, skipped, admitted, interrupted } = conversationKeys(conversation);
    const reply = await this.#bounded('lease', order, () =>
      this.#run(S.CONVERSATION_SCRIPT, {
        keys: { order, skippedSet: skipped, admittedSet: admitted, interruptedSet: interrupted },
        args: { me: turnKey, maxWaiting, ttl: L.conversationTtlSeconds, interrupts: interrupt ? '1' : '0' },
      }),
    );
    if (!Array.isArray(reply) || typeof reply[0] !== 'string') return undefined;
    const kind = reply[0];
    if (kind !== 'go' && kind !== 'wait' && kind !== 'skipped') return undefined;
    const skippedNow = typeof reply[2] === 'string' && reply[2] !== '' ? reply[2] : undefined;
    const interrupting = Number(reply[3]) || 0;
    return { kind, ahead: Number(reply[1]) || 0, ...(skippedNow ? { skippedNow } : {}), ...(interrupting > 0 ? { interrupting } : {}) };
  }

  /** Whether a newer message marked this running turn interrupted, in one script (CONVERSATION_INTERRUPTED_SCRIPT). */
  async conversationInterrupted(conversation: string, turnKey: string): Promise<boolean | undefined> {
    const { interrupted } = conversationKeys(conversation);
    const reply = await this.#bounded('lease', interrupted, () =>
      this.#run(S.CONVERSATION_INTERRUPTED_SCRIPT, { keys: { interruptedSet: interrupted }, args: { turnKey } }),
    );
    return reply === undefined ? undefined : reply === 1;
  }
}

function replyOf(reply: unknown): EndReply {
  if (reply === undefined) return 'unreachable';
  return reply === 1 ? 'ok' : 'lost';
}

/** As replyOf, with 2: the record is missing. */
function leaseReplyOf(reply: unknown): LeaseReply {
  return reply === 2 ? 'missing' : replyOf(reply);
}
