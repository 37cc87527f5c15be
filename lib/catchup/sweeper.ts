/**
 * The catch-up sweep: after an outage longer than Slack's retries, read back
 * the mentions and direct messages Slack gave up on and answer them, late.
 *
 * One copy sweeps at a time (a lock in the store). Each message found goes
 * through the normal claim under the same message key a live delivery of it
 * would use, so a Slack retry arriving meanwhile, a second sweeping copy, or
 * a message answered before the outage (its claim is kept a day) is a
 * duplicate and runs nothing. A top-level message whose thread already
 * holds a reply by the bot is skipped without a claim. What is answered,
 * and as which delivery, is found.ts: exactly what the live listeners
 * answer, thread replies included.
 *
 * One clock: the windows are the store's (Redis TIME, carried back by every
 * look) and are compared with Slack's `ts`; the copy's own clock only
 * measures the few ms from the look to the sweep. A copy whose clock is
 * minutes off reads the same window as one whose clock is right.
 *
 * Within Slack's limits: `users.conversations`, `conversations.history` and
 * `conversations.replies` are Tier 3 (about 50 a minute); calls are spaced
 * `paceMs` apart (1.2 s), so a sweep of 50 conversations takes about a minute
 * and trips nothing. Every call goes through the rate-limit fetch like any
 * other. A non-Marketplace app's history and replies are allowed once a
 * minute, 15 objects a page: noticed from Slack's answers (history-pace.ts),
 * the sweep then asks 15 a page and reads one every 2 minutes.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/index.js';
import { STATUS_KEYS, SWEEP_LOCK_KEY, type Gap, type Leases, type Look, type Records } from '../store/index.js';
import { realSleep, withDeadline, type Sleep } from '../time/index.js';
import { envelope } from './found.js';
import { retryAfterSeconds } from '../ratelimit/retry-after.js';
import type { RefusalRecord } from '../ratelimit/refusal-log.js';
import { HISTORY_METHODS, LIMITED, LIMITED_PACE_MS, limitedByPage, limitedByRefusal, type HistoryRegime, type LimitedBy } from './history-pace.js';
import { readBack, type HistoryClient } from './read-back.js';
import { sweepWindow, type SweepWindow } from './window.js';

export interface SweepRecord {
  at: string;
  from: string;
  to: string;
  conversations: number;
  /** Threads read (conversations.replies), each active in the window. */
  threads: number;
  found: number;
  answered: number;
  /**
   * Found, but the store could not say whether another copy had it (the
   * claim failed open): not run, and the window is read again next time.
   */
  unsure: number;
  instance: string;
}

export interface SweeperOptions {
  client: HistoryClient;
  store: Pick<Records, 'lock' | 'unlock' | 'note' | 'read'> & Pick<Leases, 'dropGap'>;
  /** Run a found message as a delivery; resolves `claimed` when this copy took it, `fail-open` when it was not run for want of a store. */
  inject: (envelope: Record<string, unknown>) => Promise<'claimed' | 'duplicate' | 'fail-open'>;
  instance: string;
  log: Logger;
  /** AUTOHUB_CATCHUP_MAX_HOURS in ms: the window reaches this far back, and so do the thread parents read for replies in it. */
  maxMs: number;
  /** Slack's retry window. @default 360000 */
  retryWindowMs?: number;
  /** @default 60000 */
  marginMs?: number;
  /** The least time between two sweeps while nothing is claimed. @default 900000 */
  everyMs?: number;
  /** Between two Slack calls. @default 1200 */
  paceMs?: number;
  /** The copy's clock: measures only the time since the look (the windows are the store's). */
  now?: () => number;
  sleep?: Sleep;
}

/** The sweep lock lasts a quarter of Slack's retry window, within [1 s, 2 min], and is kept while the sweep runs. */
export function sweepLockMs(retryWindowMs: number): number {
  return Math.min(120_000, Math.max(1000, Math.round(retryWindowMs / 4)));
}

/** A sweep cut short: the copy is stopping, or the lock passed to another copy. Nothing is recorded. */
class SweepCut extends Error {}

export class CatchupSweeper {
  #running: Promise<SweepRecord | undefined> | undefined;
  #stopping = false;
  #lastSweptTo: number | undefined;
  /** This process's name on the sweep lock: a take that timed out but landed later is still ours. */
  readonly #holder: string;
  readonly #now: () => number;
  readonly #sleep: Sleep;
  /** The store's clock less the copy's, as of the look the running sweep came from. */
  #skew = 0;
  /** Slack's limit on history and replies for this app, as its answers showed it (history-pace.ts). */
  #regime: HistoryRegime = 'tier3';
  /** When the last history or replies call went out (the copy's clock): the limited pace counts from it, across sweeps. */
  #lastHistoryAt: number | undefined;

  constructor(private readonly o: SweeperOptions) {
    this.#now = o.now ?? Date.now;
    this.#sleep = o.sleep ?? realSleep;
    this.#holder = `${o.instance}:${randomUUID()}`;
  }

  /**
   * Sweep if one is due: over a recorded gap in serving (the claim that ended
   * a silence longer than Slack's retries recorded it), or, while nothing is
   * claimed at all, since the last claim. Resolves with what was done.
   * A look that carries no store time (`nowMs`) is not swept from: the
   * copy's own clock is never compared with Slack's `ts`.
   */
  async maybeSweep(look: Pick<Look, 'sinceServedMs' | 'gap' | 'nowMs'>): Promise<SweepRecord | undefined> {
    if (this.#running || this.#stopping || look.nowMs === undefined) return undefined;
    this.#skew = look.nowMs - this.#now();
    const run = (async () => {
      try {
        return look.gap ? await this.#overGap(look.gap) : await this.#whileSilent(look.sinceServedMs);
      } catch (error) {
        if (error instanceof SweepCut) this.o.log.info('catchup.cut', { reason: error.message });
        else this.o.log.error('catchup.failed', { error });
        return undefined;
      } finally {
        this.#running = undefined;
      }
    })();
    this.#running = run;
    return run;
  }

  /**
   * On shutdown: no new sweep; one running stops at its next Slack call and
   * lets the lock go (else no copy could sweep until it lapsed). Waits at
   * most `waitMs` for that, then lets the lock go itself.
   */
  async stop(waitMs = 2000): Promise<void> {
    this.#stopping = true;
    const running = this.#running;
    if (!running) return;
    const ended = await withDeadline(
      running.then(() => true),
      waitMs,
      () => false,
    );
    if (!ended) await this.o.store.unlock(SWEEP_LOCK_KEY, this.#holder);
  }

  /** Slack's limit on conversations.history and .replies for this app, as learnt so far. */
  get regime(): HistoryRegime {
    return this.#regime;
  }

  /**
   * A rate-limit refusal of any Web API call of this copy (the rate-limit fetch's onRefusal): one of a
   * history method with a Retry-After near a minute is the non-Marketplace regime, kept from then on.
   */
  noticeRefusal(record: Pick<RefusalRecord, 'method' | 'headers'>): void {
    const retryAfter = retryAfterSeconds(record.headers);
    if (limitedByRefusal(record.method, retryAfter.source === 'header' ? retryAfter.seconds : undefined)) this.#limit('retry_after');
  }

  #limit(by: LimitedBy): void {
    if (this.#regime === 'limited') return;
    this.#regime = 'limited';
    this.o.log.warn('catchup.paced', {
      by,
      paceMs: LIMITED_PACE_MS,
      pageLimit: LIMITED.objects,
      detail: 'Slack allows this app conversations.history and conversations.replies once a minute (a non-Marketplace app): the sweep reads slower',
    });
  }

  /** How long to wait before a call of `method`: the pace after the first call, and the limited regime's own for history. */
  #waitBefore(method: string, first: boolean): number {
    const pace = first ? 0 : (this.o.paceMs ?? 1200);
    if (this.#regime !== 'limited' || !HISTORY_METHODS.has(method) || this.#lastHistoryAt === undefined) return pace;
    return Math.max(pace, this.#lastHistoryAt + LIMITED_PACE_MS - this.#now());
  }

  /** Wait `ms`, keeping the sweep lock on the way (taken again at a third of its life: a 2-minute wait outlives it). */
  async #pause(ms: number, keep: () => Promise<void>): Promise<void> {
    const step = Math.max(1, Math.floor(sweepLockMs(this.o.retryWindowMs ?? 360_000) / 3));
    for (let left = ms; left > 0; left -= step) {
      await this.#sleep(Math.min(left, step));
      if (left > step) await keep();
    }
  }

  /** Now on the store's clock: the look's time, plus what the copy's clock says has passed since. */
  #storeNow(): number {
    return this.#now() + this.#skew;
  }

  /** A silence that ended with a claim: read back what was sent in it, once, then forget it. */
  async #overGap(gap: Gap): Promise<SweepRecord | undefined> {
    const now = this.#storeNow();
    const window = { from: Math.max(now - gap.startedMsAgo - (this.o.marginMs ?? 60_000), now - this.o.maxMs), to: now - gap.endedMsAgo };
    if (window.to <= window.from) {
      await this.o.store.dropGap(gap.raw);
      return undefined;
    }
    return this.#locked(window, () => this.o.store.dropGap(gap.raw));
  }

  /** Nothing claimed for longer than Slack retries: read back since the last claim (or the last sweep). */
  async #whileSilent(sinceServedMs: number | null): Promise<SweepRecord | undefined> {
    const due = () =>
      sweepWindow({
        now: this.#storeNow(),
        sinceServedMs,
        lastSweptTo: this.#lastSweptTo,
        retryWindowMs: this.o.retryWindowMs ?? 360_000,
        marginMs: this.o.marginMs ?? 60_000,
        maxMs: this.o.maxMs,
        everyMs: this.o.everyMs ?? 900_000,
      });
    if (!due()) return undefined;
    // Another copy may have swept already: its record says where it ended.
    const shared = await this.o.store.read(STATUS_KEYS.sweep);
    const to = shared ? Date.parse((JSON.parse(shared) as SweepRecord).to) : NaN;
    if (Number.isFinite(to)) this.#lastSweptTo = Math.max(this.#lastSweptTo ?? -Infinity, to);
    const window = due();
    if (!window) return undefined;
    return this.#locked(window, async () => {
      this.#lastSweptTo = window.to;
    });
  }

  /**
   * One sweep under the lock, its record written, then `done`. The lock is
   * taken in this process's name, so a take that got no answer (a store that
   * hung) but landed later does not shut every copy out: the next look here
   * finds the lock its own. It lasts a quarter of Slack's retry window and
   * is taken again as the sweep goes on, so a copy that dies mid-sweep holds
   * up the next sweep by that much at most.
   */
  async #locked(window: SweepWindow, done: () => Promise<void>): Promise<SweepRecord | undefined> {
    const lockMs = sweepLockMs(this.o.retryWindowMs ?? 360_000);
    const take = () => this.o.store.lock(SWEEP_LOCK_KEY, Math.ceil(lockMs / 1000), this.#holder);
    if ((await take()) !== true) return undefined;
    let takenAt = this.#now();
    const keep = async () => {
      if (this.#stopping) throw new SweepCut('the copy is stopping');
      if (this.#now() - takenAt < lockMs / 3) return;
      // No answer: go on (a second sweeper costs only duplicate claims); taken by another: stop here.
      const kept = await take();
      if (kept === false) throw new SweepCut('the sweep lock lapsed and another copy took it');
      if (kept) takenAt = this.#now();
    };
    try {
      const record = await this.sweep(window, keep);
      // Some were left for want of a store: neither the gap nor the watermark moves, so the window is read again.
      if (record.unsure > 0) return record;
      await done();
      await this.o.store.note(STATUS_KEYS.sweep, JSON.stringify(record), 30 * 24 * 3600);
      return record;
    } finally {
      await this.o.store.unlock(SWEEP_LOCK_KEY, this.#holder);
    }
  }

  /** Read the window back from Slack (read-back.ts) and hand each unanswered message to the normal claim path, one Slack call per `paceMs`. */
  async sweep(window: SweepWindow, keep: () => Promise<void> = async () => {}): Promise<SweepRecord> {
    const tally = { found: 0, answered: 0, unsure: 0 };
    let calls = 0;
    await keep();
    const read = await readBack({
      client: this.o.client,
      window,
      reachMs: this.o.maxMs,
      log: this.o.log,
      beforeCall: async (method) => {
        const wait = this.#waitBefore(method, calls++ === 0);
        if (wait > 0) await this.#pause(wait, keep);
        await keep();
        if (HISTORY_METHODS.has(method)) this.#lastHistoryAt = this.#now();
      },
      pageLimit: () => (this.#regime === 'limited' ? LIMITED.objects : 200),
      onPage: (method, asked, page) => {
        // Counted from the answer too: a call the rate-limit layer held for its Retry-After went out only then.
        this.#lastHistoryAt = this.#now();
        if (limitedByPage(method, asked, page)) this.#limit('page_of_15');
      },
      found: async (conversation, m, me, answeredBefore) => {
        tally.found += 1;
        if (answeredBefore) return;
        await keep();
        const outcome = await this.o.inject(envelope(me.team, conversation, m));
        if (outcome === 'claimed') tally.answered += 1;
        if (outcome === 'fail-open') tally.unsure += 1;
      },
    });
    const record: SweepRecord = {
      at: new Date(this.#storeNow()).toISOString(),
      from: new Date(window.from).toISOString(),
      to: new Date(window.to).toISOString(),
      ...read,
      ...tally,
      instance: this.o.instance,
    };
    this.o.log.info('catchup.swept', { ...record });
    return record;
  }
}
