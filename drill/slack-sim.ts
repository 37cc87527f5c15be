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
 */
import { signedHeaders } from '../lib/slack/index.js';
import { appRateLimitedEnvelope, deliverUnsigned, sslCheckForm } from './sim/slack-events.js';

export const SLACK_DEADLINE_MS = 3000;
/** Slack's schedule for retries 1, 2 and 3, in real minutes and seconds. */
export const RETRY_DELAYS_MS = [500, 60_000, 300_000] as const;

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
        const attempt = await this.#attempt(mention, eventId, body, retryNum, url);
        this.attempts.push(attempt);
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
      await response.arrayBuffer();
      return {
        ...base,
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
