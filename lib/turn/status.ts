/**
 * The thinking status under a thread while a turn runs ("<bot> is
 * thinking...", with loading messages Slack rotates), wherever the bot
 * answers: DMs, channel mentions, threads. Slack accepts `chat:write` for
 * it in channels since 2026-03-05, and removes it after two minutes without
 * a message ("A two minute timeout applies",
 * https://docs.slack.dev/reference/methods/assistant.threads.setStatus), so
 * a turn that runs longer refreshes it.
 *
 * Cost: one call when the turn starts; then one refresh per thread at most
 * every STATUS_REFRESH_MS, and only while nothing is posted: a turn that
 * answers within 90 s makes no refresh. Slack clears the status itself when
 * the reply's first message appears; a run that fails before posting clears
 * it (the retry sets it again), and so does the copy that takes a turn over
 * (it sets its own). Where Slack refuses the status for good (a conversation
 * type, a missing scope), the channel is never asked again by this copy, and
 * a refusal is never a failure of the turn.
 */
import type { WebClient } from '@slack/web-api';
import { isLeaseLost } from '../errors/index.js';
import type { Logger } from '../log/index.js';

/** Slack's two minutes (120 s) less a margin for a rate-limit wait or a slow round trip: 90 s. */
export const STATUS_REFRESH_MS = 90_000;

/** Slack's refusals that will not change for the conversation: stop asking. */
const REFUSED_FOR_GOOD = new Set(['channel_not_found', 'method_not_supported_for_channel_type', 'missing_scope', 'not_allowed_token_type', 'not_in_channel']);

/** The clock a status runs on, and how it waits for its next refresh; tests give a clock of their own. */
export interface StatusTimers {
  now(): number;
  /** Call `fn` after `ms`; returns its cancel. */
  after(ms: number, fn: () => void): () => void;
}

export const realTimers: StatusTimers = {
  now: () => Date.now(),
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    // A pending refresh never keeps a stopping process alive.
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

/** When the next refresh is due, from the thread's last set: pure. */
export function refreshIn(lastSetAt: number, now: number, refreshMs = STATUS_REFRESH_MS): number {
  return Math.max(0, lastSetAt + refreshMs - now);
}

/** One per copy: when each thread's status was last set (two turns in a thread share one refresh), and the channels that refuse it. */
export class StatusBook {
  readonly lastSet = new Map<string, number>();
  readonly refused = new Set<string>();
  /** How many turns hold a thread's entry, so the last one to end forgets it. */
  readonly #holders = new Map<string, number>();

  hold(thread: string): void {
    this.#holders.set(thread, (this.#holders.get(thread) ?? 0) + 1);
  }

  release(thread: string): void {
    const left = (this.#holders.get(thread) ?? 1) - 1;
    if (left > 0) this.#holders.set(thread, left);
    else {
      this.#holders.delete(thread);
      this.lastSet.delete(thread);
    }
  }
}

export interface ThinkingStatusOptions {
  client: Pick<WebClient, 'assistant'>;
  channel: string;
  threadTs: string;
  status: string;
  loadingMessages: readonly string[];
  book: StatusBook;
  timers: StatusTimers;
  log: Logger;
  eventId: string;
}

export class ThinkingStatus {
  #cancel: (() => void) | undefined;
  #ended = false;
  #started = false;
  readonly #thread: string;

  constructor(private readonly o: ThinkingStatusOptions) {
    this.#thread = `${o.channel}:${o.threadTs}`;
  }

  /** Show the status now and keep it shown until `stop` or `clear`. */
  start(): void {
    const { o } = this;
    if (this.#started || o.book.refused.has(o.channel)) return;
    this.#started = true;
    o.book.hold(this.#thread);
    this.#set();
  }

  /** The reply's first message is out (Slack clears the status with it), or the turn ended: no more refreshes. */
  stop(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#cancel?.();
    this.#cancel = undefined;
    if (this.#started) this.o.book.release(this.#thread);
  }

  /** The run ended with nothing posted (it failed, or stood down): take the status away, through `client` (a client that is not fenced). */
  clear(client: Pick<WebClient, 'assistant'>): void {
    const was = this.#started && !this.#ended;
    this.stop();
    if (!was) return;
    const { o } = this;
    client.assistant.threads.setStatus({ channel_id: o.channel, thread_ts: o.threadTs, status: '' }).catch(() => undefined);
  }

  #set(): void {
    const { o } = this;
    const at = o.timers.now();
    o.book.lastSet.set(this.#thread, at);
    this.#schedule(STATUS_REFRESH_MS);
    o.client.assistant.threads
      .setStatus({
        channel_id: o.channel,
        thread_ts: o.threadTs,
        status: o.status,
        ...(o.loadingMessages.length ? { loading_messages: [...o.loadingMessages] } : {}),
      })
      .catch((error: unknown) => {
        // This copy lost the turn: the copy that owns it shows its own status.
        if (isLeaseLost(error)) return this.stop();
        const code = (error as { data?: { error?: unknown } }).data?.error;
        if (typeof code === 'string' && REFUSED_FOR_GOOD.has(code)) {
          o.book.refused.add(o.channel);
          this.stop();
        }
        o.log.debug('turn.status_refused', { eventId: o.eventId, error: typeof code === 'string' ? code : 'failed' });
      });
  }

  #schedule(ms: number): void {
    this.#cancel?.();
    this.#cancel = this.o.timers.after(ms, () => this.#due());
  }

  #due(): void {
    if (this.#ended) return;
    const { o } = this;
    // Another turn in this thread may have refreshed it meanwhile: wait out the rest of its 90 s.
    const wait = refreshIn(o.book.lastSet.get(this.#thread) ?? -Infinity, o.timers.now());
    if (wait > 0) this.#schedule(wait);
    else this.#set();
  }
}
