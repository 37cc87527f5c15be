/**
 * A simulated Slack: delivers each event the way the Events API does. Every
 * attempt is signed afresh; an answer must come within 3 s; a failed attempt
 * is retried nearly at once, then after 1 and 5 minutes (divided by the
 * drill's time factor), with X-Slack-Retry-Num and X-Slack-Retry-Reason; a
 * non-2xx carrying `x-slack-no-retry` ends the retries. After the third retry
 * the event is gone, as it is on Slack.
 *
 * Besides mentions it sends what else Slack sends to the same URL: the
 * unsigned `ssl_check` form post, and the `app_rate_limited` notice.
 *
 * And it turns the app's events off as Slack may: when fewer than 5% of the
 * event deliveries of the past 60 minutes (divided by the factor) got a
 * 200, Slack stops sending events until the owner turns them on again
 * (https://docs.slack.dev/reference/events/app_rate_limited: "Event
 * subscriptions may be limited and disabled when your app does not respond
 * with a HTTP 200 OK to at least 5% of event deliveries in the past 60
 * minutes"). From then on no event is sent; slash commands and clicks still are.
 */
import { signedHeaders } from '../lib/slack/index.js';
import { appRateLimitedEnvelope, deliverUnsigned, sslCheckForm } from './sim/slack-events.js';

export const SLACK_DEADLINE_MS = 3000;
/** Slack's schedule for retries 1, 2 and 3, in real minutes and seconds. */
export const RETRY_DELAYS_MS = [500, 60_000, 300_000] as const;

/** Slack's disable rule: under this share of 200s ... */
export const DISABLE_SHARE = 0.05;
/** ... over the past 60 minutes of event deliveries. */
export const DISABLE_WINDOW_MS = 60 * 60_000;

/**
 * Whether Slack's rule turns the events off at `now`: the event deliveries of the past `windowMs` got a 2xx
 * under DISABLE_SHARE of the time. Judged only once a whole window has passed since `since` (the drill has no
 * traffic from before its first delivery: a short scenario's first failures are not a whole hour). Pure.
 */
export function eventsDisabled(deliveries: ReadonlyArray<{ at: number; ok: boolean }>, now: number, windowMs: number, since: number): boolean {
  if (now - since < windowMs) return false;
  const recent = deliveries.filter((d) => d.at > now - windowMs && d.at <= now);
  return recent.length > 0 && recent.filter((d) => d.ok).length / recent.length < DISABLE_SHARE;
}

export interface Attempt {
  /** The mention this attempt delivers (its message ts). */
  mention: string;
  eventId: string;
  retryNum: number;
  sentAt: number;
  /** When the answer came, or undefined when none did within the deadline. */
  answeredAt: number | undefined;
  status: number | 'timeout' | 'error';
  route: string | null;
  claim: string | null;
  role: string | null;
  /** The answer carried `x-slack-no-retry`. */
  noRetry: boolean;
  /** What a slash command or an interaction was answered with (its body's start), where it was a form. */
  answer?: string;
}

export interface SlackSimOptions {
  url: string;
  signingSecret: string;
  /** Real time is divided by this for Slack's retry schedule. */
  factor: number;
  now?: () => number;
}

/** What a copy answered to one of Slack's notices (not a mention). */
export interface NoticeAnswer {
  kind: 'ssl_check' | 'app_rate_limited';
  status: number | 'timeout' | 'error';
}

export class SlackSim {
  readonly attempts: Attempt[] = [];
  readonly notices: NoticeAnswer[] = [];
  /** When Slack's disable rule turned the app's events off; undefined while they are on. */
  eventsDisabledAt: number | undefined;
  /** Event deliveries Slack never sent because the events were off: each one lost unless the catch-up sweep finds it. */
  readonly unsent: Array<{ mention: string; eventId: string }> = [];
  readonly #eventDeliveries: Array<{ at: number; ok: boolean }> = [];
  #firstEventAt: number | undefined;
  readonly #pending = new Set<Promise<void>>();
  readonly #o: Required<SlackSimOptions>;

  constructor(options: SlackSimOptions) {
    this.#o = { ...options, now: options.now ?? Date.now };
  }

  /**
   * Deliver one event (and its retries); resolves when Slack is done with it.
   * `url`: another address than the sim's (one of a DM mention's two events
   * sent straight to another copy).
   */
  deliver(mention: string, eventId: string, body: string, url = this.#o.url): Promise<void> {
    const run = (async () => {
      for (let retryNum = 0; retryNum <= RETRY_DELAYS_MS.length; retryNum++) {
        if (retryNum > 0) await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[retryNum - 1]! / this.#o.factor));
        if (this.eventsDisabledAt !== undefined) {
          this.unsent.push({ mention, eventId });
          return;
        }
        const attempt = await this.#attempt(mention, eventId, body, retryNum, url);
        this.attempts.push(attempt);
        this.#judge(attempt);
        if (typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300) return;
        if (attempt.noRetry) return;
      }
    })();
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
    return run;
  }

  /**
   * One interaction (a button click's `payload` form), sent once: Slack does
   * not retry interactivity (a failure shows the person an error). Recorded
   * with the attempts under `mention`, so its ack is held to Slack's 3 s too.
   */
  async interact(mention: string, id: string, form: string, url = this.#o.url): Promise<void> {
    const run = this.#attempt(mention, id, form, 0, url, 'application/x-www-form-urlencoded').then((attempt) => void this.attempts.push(attempt));
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
    return run;
  }

  /** One event delivery more for Slack's disable rule. */
  #judge(attempt: Attempt): void {
    const now = this.#o.now();
    this.#firstEventAt ??= attempt.sentAt;
    const ok = typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300;
    this.#eventDeliveries.push({ at: attempt.sentAt, ok });
    if (eventsDisabled(this.#eventDeliveries, now, DISABLE_WINDOW_MS / this.#o.factor, this.#firstEventAt)) this.eventsDisabledAt = now;
  }

  /** Slack checks a slash command's URL: an unsigned `ssl_check=1` form post; answered 200 by Bolt. */
  async sslCheck(url = this.#o.url): Promise<NoticeAnswer> {
    return this.#notice('ssl_check', () => deliverUnsigned(url, sslCheckForm(), { signal: AbortSignal.timeout(SLACK_DEADLINE_MS) }));
  }

  /**
   * Slack says it is dropping the app's events (https://docs.slack.dev/reference/events/app_rate_limited),
   * signed like any delivery. Sent once: Slack's page says nothing of retrying it.
   */
  async appRateLimited(o: { team?: string; minute?: number } = {}, url = this.#o.url): Promise<NoticeAnswer> {
    const body = JSON.stringify(appRateLimitedEnvelope(o));
    return this.#notice('app_rate_limited', async () =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(await signedHeaders(this.#o.signingSecret, body, Date.now())) },
        body,
        signal: AbortSignal.timeout(SLACK_DEADLINE_MS),
      }),
    );
  }

  async #notice(kind: NoticeAnswer['kind'], send: () => Promise<Response>): Promise<NoticeAnswer> {
    let answer: NoticeAnswer;
    try {
      const response = await send();
      await response.arrayBuffer();
      answer = { kind, status: response.status };
    } catch (error) {
      answer = { kind, status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'error' };
    }
    this.notices.push(answer);
    return answer;
  }

  async #attempt(mention: string, eventId: string, body: string, retryNum: number, url: string, contentType = 'application/json'): Promise<Attempt> {
    const sentAt = this.#o.now();
    const lastReason = this.attempts.findLast((a) => a.eventId === eventId)?.status;
    const reason = lastReason === 'timeout' ? 'http_timeout' : lastReason === 'error' ? 'connection_failed' : 'http_error';
    const headers: Record<string, string> = {
      'content-type': contentType,
      ...(await signedHeaders(this.#o.signingSecret, body, Date.now())),
      ...(retryNum > 0 ? { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': reason } : {}),
    };
    const signal = AbortSignal.timeout(SLACK_DEADLINE_MS);
    const base = { mention, eventId, retryNum, sentAt };
    try {
      const response = await fetch(url, { method: 'POST', headers, body, signal });
      const text = await response.text();
      return {
        ...base,
        ...(contentType.startsWith('application/x-www-form-urlencoded') && text ? { answer: text.slice(0, 500) } : {}),
        answeredAt: this.#o.now(),
        status: response.status,
        route: response.headers.get('x-autohub-route'),
        claim: response.headers.get('x-autohub-claim'),
        role: response.headers.get('x-autohub-role'),
        noRetry: response.headers.has('x-slack-no-retry'),
      };
    } catch {
      return { ...base, answeredAt: undefined, status: signal.aborted ? 'timeout' : 'error', route: null, claim: null, role: null, noRetry: false };
    }
  }

  /** Resolves when every delivery, retries included, is done. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
