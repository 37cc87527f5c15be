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
 * other.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, type WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import { STATUS_KEYS, SWEEP_LOCK_KEY, type Gap, type Leases, type Look, type Records } from '../store/index.js';
import { realSleep, withDeadline, type Sleep } from '../time/index.js';
import { answeredLive, envelope, inWindow, repliedInThread, threadToRead, type Conversation, type Me, type SlackMessage } from './found.js';
import { sweepWindow, type SweepWindow } from './window.js';

export type HistoryClient = Pick<WebClient, 'auth' | 'users' | 'conversations'>;

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

const slackTs = (ms: number) => (ms / 1000).toFixed(6);

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
  /** Slack calls so far in the running sweep: every one after the first is paced. */
  #calls = 0;

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
    const ended = await withDeadline(running.then(() => true), waitMs, () => false);
    if (!ended) await this.o.store.unlock(SWEEP_LOCK_KEY, this.#holder);
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

  /**
   * Read the window back from Slack and hand each unanswered message to the
   * normal claim path; `keep` before each Slack call, and one call per `paceMs`.
   *
   * conversations.history lists top-level messages only; a thread's replies
   * come from conversations.replies. A thread is read when its parent (in
   * the window, or up to `maxMs` before its end) says its latest reply is in
   * the window and someone besides the bot replied in it: one call per such
   * thread and page, so a sweep costs one call per conversation and page,
   * plus one per thread active in the window.
   */
  async sweep(window: SweepWindow, keep: () => Promise<void> = async () => {}): Promise<SweepRecord> {
    const { client, log } = this.o;
    this.#calls = 0;
    await keep();
    const auth = await client.auth.test();
    const me: Me = { user: auth.user_id, bot: auth.bot_id, team: auth.team_id };
    const conversations: Conversation[] = [];
    await this.#pages(keep, (cursor) => client.users.conversations({ types: 'public_channel,private_channel,mpim,im', exclude_archived: true, limit: 200, ...(cursor ? { cursor } : {}) }), (page) => {
      for (const c of (page.channels ?? []) as Array<{ id?: string; is_im?: boolean }>) if (c.id) conversations.push({ id: c.id, im: c.is_im === true });
    });
    const tally = { found: 0, answered: 0, unsure: 0, threads: 0 };
    const hand = async (conversation: Conversation, m: SlackMessage) => {
      await keep();
      const outcome = await this.o.inject(envelope(me.team, conversation, m));
      if (outcome === 'claimed') tally.answered += 1;
      if (outcome === 'fail-open') tally.unsure += 1;
    };
    // A thread started before the window may have replies in it: parents are read back this far.
    const parentsFrom = Math.min(window.from, window.to - this.o.maxMs);
    for (const conversation of conversations) {
      const seen = new Set<string>();
      const threads: string[] = [];
      const history = (cursor: string | undefined) =>
        client.conversations.history({ channel: conversation.id, oldest: slackTs(parentsFrom), latest: slackTs(window.to), inclusive: true, limit: 200, ...(cursor ? { cursor } : {}) });
      await this.#pages(keep, history, async (page) => {
        for (const m of (page.messages ?? []) as SlackMessage[]) {
          if (threadToRead(m, window.from, me)) threads.push(m.ts!);
          if (!inWindow(m.ts, window)) continue;
          seen.add(m.ts!);
          if (!answeredLive(m, conversation, me)) continue;
          tally.found += 1;
          // Its thread already holds a reply by the bot: answered before the outage.
          if (repliedInThread(m, me)) continue;
          await hand(conversation, m);
        }
      });
      for (const thread of threads) {
        tally.threads += 1;
        const replies = (cursor: string | undefined) =>
          client.conversations.replies({ channel: conversation.id, ts: thread, oldest: slackTs(window.from), latest: slackTs(window.to), inclusive: true, limit: 200, ...(cursor ? { cursor } : {}) });
        try {
          await this.#pages(keep, replies, async (page) => {
            for (const m of (page.messages ?? []) as SlackMessage[]) {
              // The parent comes first on every read of a thread; a reply also sent to the channel was in the history.
              if (!m.ts || m.ts === thread || seen.has(m.ts) || !inWindow(m.ts, window)) continue;
              seen.add(m.ts);
              if (!answeredLive(m, conversation, me)) continue;
              tally.found += 1;
              await hand(conversation, m);
            }
          });
        } catch (error) {
          // Slack refused this thread for good (thread_not_found: it went meanwhile): the others are still read.
          // Anything else (a 5xx, a dropped connection) ends the sweep, and its window is read again.
          if ((error as { code?: unknown }).code !== ErrorCode.PlatformError) throw error;
          log.warn('catchup.thread_unread', { channel: conversation.id, thread, error: (error as { data?: { error?: unknown } }).data?.error });
        }
      }
    }
    const record: SweepRecord = {
      at: new Date(this.#storeNow()).toISOString(),
      from: new Date(window.from).toISOString(),
      to: new Date(window.to).toISOString(),
      conversations: conversations.length,
      threads: tally.threads,
      found: tally.found,
      answered: tally.answered,
      unsure: tally.unsure,
      instance: this.o.instance,
    };
    log.info('catchup.swept', { ...record });
    return record;
  }

  /** Every page of a cursor-paged Slack list, each call after a pause of `paceMs` (Tier 3: about 50 a minute). */
  async #pages<P extends { has_more?: boolean; response_metadata?: { next_cursor?: string } }>(
    keep: () => Promise<void>,
    call: (cursor: string | undefined) => Promise<P>,
    each: (page: P) => void | Promise<void>,
  ): Promise<void> {
    let cursor: string | undefined;
    do {
      if (this.#calls++ > 0) await this.#sleep(this.o.paceMs ?? 1200);
      await keep();
      const page = await call(cursor);
      await each(page);
      // users.conversations says only next_cursor; history and replies say has_more too.
      cursor = page.has_more === false ? undefined : page.response_metadata?.next_cursor || undefined;
    } while (cursor);
  }
}

