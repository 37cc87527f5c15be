/**
 * The catch-up sweep: after an outage longer than Slack's retries, read back
 * the mentions and direct messages Slack gave up on and answer them, late.
 *
 * One copy sweeps at a time (a lock in the store). Each message found goes
 * through the normal claim under the same message key a live delivery of it
 * would use, so a Slack retry arriving meanwhile, a second sweeping copy, or
 * a message answered before the outage (its claim is kept a day) is a
 * duplicate and runs nothing. A message whose thread already holds a reply
 * by the bot is skipped without a claim.
 *
 * Within Slack's limits: `users.conversations` and `conversations.history`
 * are Tier 3 (about 50 a minute); calls are spaced `paceMs` apart (1.2 s), so
 * a sweep of 50 conversations takes about a minute and trips nothing. Every
 * call goes through the rate-limit fetch like any other.
 */
import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import { STATUS_KEYS, SWEEP_LOCK_KEY, type Gap, type Leases, type Look, type Records } from '../store/index.js';
import { realSleep, withDeadline, type Sleep } from '../time/index.js';
import { sweepWindow, type SweepWindow } from './window.js';

export type HistoryClient = Pick<WebClient, 'auth' | 'users' | 'conversations'>;

export interface SweepRecord {
  at: string;
  from: string;
  to: string;
  conversations: number;
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
  /** AUTOHUB_CATCHUP_MAX_HOURS in ms. */
  maxMs: number;
  /** Slack's retry window. @default 360000 */
  retryWindowMs?: number;
  /** @default 60000 */
  marginMs?: number;
  /** The least time between two sweeps while nothing is claimed. @default 900000 */
  everyMs?: number;
  /** Between two Slack calls. @default 1200 */
  paceMs?: number;
  now?: () => number;
  sleep?: Sleep;
}

interface Message {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  thread_ts?: string;
  reply_users?: string[];
}

/** Subtypes that are not a person writing. */
const NOT_A_PERSON = new Set(['bot_message', 'message_changed', 'message_deleted', 'channel_join', 'channel_leave', 'channel_topic', 'channel_purpose', 'channel_name', 'group_join', 'group_leave']);

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

  constructor(private readonly o: SweeperOptions) {
    this.#now = o.now ?? Date.now;
    this.#sleep = o.sleep ?? realSleep;
    this.#holder = `${o.instance}:${randomUUID()}`;
  }

  /**
   * Sweep if one is due: over a recorded gap in serving (the claim that ended
   * a silence longer than Slack's retries recorded it), or, while nothing is
   * claimed at all, since the last claim. Resolves with what was done.
   */
  async maybeSweep(look: Pick<Look, 'sinceServedMs' | 'gap'>): Promise<SweepRecord | undefined> {
    if (this.#running || this.#stopping) return undefined;
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

  /** A silence that ended with a claim: read back what was sent in it, once, then forget it. */
  async #overGap(gap: Gap): Promise<SweepRecord | undefined> {
    const now = this.#now();
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
        now: this.#now(),
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

  /** Read the window back from Slack and hand each unanswered message to the normal claim path; `keep` before each Slack call. */
  async sweep(window: SweepWindow, keep: () => Promise<void> = async () => {}): Promise<SweepRecord> {
    const { client, log } = this.o;
    const pace = this.o.paceMs ?? 1200;
    await keep();
    const me = await client.auth.test();
    const botUser = me.user_id;
    const team = me.team_id;
    const conversations: Array<{ id: string; im: boolean }> = [];
    let cursor: string | undefined;
    do {
      await keep();
      const page = await client.users.conversations({ types: 'public_channel,private_channel,mpim,im', exclude_archived: true, limit: 200, ...(cursor ? { cursor } : {}) });
      for (const c of page.channels ?? []) if (c.id) conversations.push({ id: c.id, im: c.is_im === true });
      cursor = page.response_metadata?.next_cursor || undefined;
      if (cursor) await this.#sleep(pace);
    } while (cursor);
    let found = 0;
    let answered = 0;
    let unsure = 0;
    for (const conversation of conversations) {
      await this.#sleep(pace);
      let page: string | undefined;
      do {
        await keep();
        const history = await client.conversations.history({
          channel: conversation.id,
          oldest: slackTs(window.from),
          latest: slackTs(window.to),
          inclusive: true,
          limit: 200,
          ...(page ? { cursor: page } : {}),
        });
        for (const m of (history.messages ?? []) as Message[]) {
          if (!m.ts || !this.#wanted(m, conversation.im, botUser)) continue;
          found += 1;
          // Its thread already holds a reply by the bot: answered before the outage.
          if (botUser && m.reply_users?.includes(botUser)) continue;
          await keep();
          const outcome = await this.o.inject(envelope(team, conversation, m));
          if (outcome === 'claimed') answered += 1;
          if (outcome === 'fail-open') unsure += 1;
        }
        page = history.has_more ? history.response_metadata?.next_cursor || undefined : undefined;
        if (page) await this.#sleep(pace);
      } while (page);
    }
    const record: SweepRecord = {
      at: new Date(this.#now()).toISOString(),
      from: new Date(window.from).toISOString(),
      to: new Date(window.to).toISOString(),
      conversations: conversations.length,
      found,
      answered,
      unsure,
      instance: this.o.instance,
    };
    log.info('catchup.swept', { ...record });
    return record;
  }

  /** A mention of the bot in a conversation, or a person's direct message to it. */
  #wanted(m: Message, im: boolean, botUser: string | undefined): boolean {
    if (m.bot_id || (m.subtype && NOT_A_PERSON.has(m.subtype)) || (botUser && m.user === botUser)) return false;
    return im || (botUser !== undefined && (m.text ?? '').includes(`<@${botUser}>`));
  }
}

/** The delivery Slack would have sent for `m`, marked as caught up (the reply says it comes late). */
function envelope(team: string | undefined, conversation: { id: string; im: boolean }, m: Message): Record<string, unknown> {
  const ts = m.ts!;
  return {
    type: 'event_callback',
    ...(team ? { team_id: team } : {}),
    event_id: `Ev-catchup-${conversation.id}-${ts}`,
    event_time: Math.floor(Number(ts)),
    autohub_catchup: true,
    event: {
      type: conversation.im ? 'message' : 'app_mention',
      channel: conversation.id,
      ts,
      event_ts: ts,
      ...(m.user ? { user: m.user } : {}),
      text: m.text ?? '',
      ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
      ...(m.subtype ? { subtype: m.subtype } : {}),
      ...(conversation.im ? { channel_type: 'im' } : {}),
    },
  };
}
