/**
 * A simulated Slack: delivers each event the way the Events API does. Every
 * attempt is signed afresh; an answer must come within 3 s; a failed attempt
 * is retried nearly at once, then after 1 and 5 minutes (divided by the
 * drill's time factor), with X-Slack-Retry-Num and X-Slack-Retry-Reason; a
 * non-2xx carrying `x-slack-no-retry` ends the retries. After the third retry
 * the event is gone, as it is on Slack.
 */
import { signedHeaders } from '../lib/slack/index.js';

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

export class SlackSim {
  readonly attempts: Attempt[] = [];
  readonly #pending = new Set<Promise<void>>();
  readonly #o: Required<SlackSimOptions>;

  constructor(options: SlackSimOptions) {
    this.#o = { ...options, now: options.now ?? Date.now };
  }

  /** Deliver one event (and its retries); resolves when Slack is done with it. */
  deliver(mention: string, eventId: string, body: string): Promise<void> {
    const run = (async () => {
      for (let retryNum = 0; retryNum <= RETRY_DELAYS_MS.length; retryNum++) {
        if (retryNum > 0) await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[retryNum - 1]! / this.#o.factor));
        const attempt = await this.#attempt(mention, eventId, body, retryNum);
        this.attempts.push(attempt);
        if (typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300) return;
        if (attempt.noRetry) return;
      }
    })();
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
    return run;
  }

  async #attempt(mention: string, eventId: string, body: string, retryNum: number): Promise<Attempt> {
    const sentAt = this.#o.now();
    const lastReason = this.attempts.findLast((a) => a.eventId === eventId)?.status;
    const reason = lastReason === 'timeout' ? 'http_timeout' : lastReason === 'error' ? 'connection_failed' : 'http_error';
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(await signedHeaders(this.#o.signingSecret, body, Date.now())),
      ...(retryNum > 0 ? { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': reason } : {}),
    };
    const signal = AbortSignal.timeout(SLACK_DEADLINE_MS);
    const base = { mention, eventId, retryNum, sentAt };
    try {
      const response = await fetch(this.#o.url, { method: 'POST', headers, body, signal });
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
