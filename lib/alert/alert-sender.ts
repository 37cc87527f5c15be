/**
 * The owner's line outside Slack (AUTOHUB_ALERT_URL): every owner notice is
 * also POSTed there as JSON (lib/alert/body.ts), so a revoked bot token or a
 * Slack outage, which stop the DM, do not stop the word. Nothing here
 * touches Slack or the store.
 *
 * Never blocks its caller: `send` queues and returns at once; one worker
 * posts the queue in order. Bounded: a queue of `maxQueue` (a notice past it
 * is dropped and counted), a fresh `timeoutMs` per attempt, `retries` more
 * attempts with backoff after a refusal (5xx, 429) or a network fault, and
 * no retry after a 4xx (the URL or its token is wrong: trying again will not
 * mend it). Worst case per alert: 4 x 5 s + 1 s + 3 s + 9 s = 33 s.
 *
 * The URL is never logged: only its origin (a webhook's path and query hold
 * its token).
 */
import pRetry, { AbortError } from 'p-retry';
import type { Logger } from '../log/index.js';
import { alertBody } from './body.js';

export interface AlertSenderOptions {
  url: string;
  instance: string;
  role: string;
  log: Logger;
  /** @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
  /** @default Date.now */
  now?: (() => number) | undefined;
  /** Each attempt's bound. @default 5_000 */
  timeoutMs?: number;
  /** Attempts after the first. @default 3 */
  retries?: number;
  /** The first retry's wait; each next one three times longer. @default 1_000 */
  minDelayMs?: number;
  /** Alerts waiting at most; one more is dropped (logged `alert.dropped`). @default 20 */
  maxQueue?: number;
}

/** What health and the status page show of the alert URL. */
export interface AlertView {
  /** Where alerts go: the URL's origin alone. */
  origin: string;
  /** When an alert was last delivered; null: never. */
  last_ok_at: string | null;
  /** When an alert was last given up (or dropped); null: never. */
  last_failed_at: string | null;
  /** Why it was (a status code or an error's name and message, never the URL). */
  last_failure?: string;
  /** Alerts given up or dropped since this copy started. */
  failed: number;
}

/** The URL's origin (scheme, host, port): what may be logged of it. */
export function alertOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}

class Refused extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
    this.name = 'Refused';
  }
}

export class AlertSender {
  readonly #o: AlertSenderOptions;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #queue: { text: string; cause: string; at: number }[] = [];
  #working: Promise<void> | undefined;
  #view: AlertView;

  constructor(options: AlertSenderOptions) {
    this.#o = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#now = options.now ?? Date.now;
    this.#view = { origin: alertOrigin(options.url), last_ok_at: null, last_failed_at: null, failed: 0 };
  }

  /** How the alerts have gone, for the health body and the status page. */
  get view(): AlertView {
    return { ...this.#view };
  }

  /** Queue `text` for the alert URL; returns at once, never throws. */
  send(text: string, cause: string): void {
    const max = this.#o.maxQueue ?? 20;
    if (this.#queue.length >= max) {
      this.#failed('queue full');
      this.#o.log.warn('alert.dropped', { cause, origin: this.#view.origin, queued: this.#queue.length });
      return;
    }
    this.#queue.push({ text, cause, at: this.#now() });
    this.#working ??= this.#work().finally(() => {
      this.#working = undefined;
    });
  }

  /** Resolves once the queue is empty (each alert delivered or given up). */
  async settled(): Promise<void> {
    while (this.#working) await this.#working;
  }

  async #work(): Promise<void> {
    for (let next = this.#queue.shift(); next; next = this.#queue.shift()) await this.#post(next);
  }

  async #post(alert: { text: string; cause: string; at: number }): Promise<void> {
    const o = this.#o;
    const body = JSON.stringify(alertBody(alert.text, { cause: alert.cause, instance: o.instance, role: o.role, at: alert.at }));
    const origin = this.#view.origin;
    try {
      await pRetry(
        async () => {
          const response = await this.#fetch(o.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', title: `autohub: ${alert.cause}` },
            body,
            redirect: 'error',
            signal: AbortSignal.timeout(o.timeoutMs ?? 5_000),
          });
          await response.body?.cancel().catch(() => {});
          if (response.ok) return;
          const refused = new Refused(response.status);
          // A 4xx (but 408 and 429) says the URL or its token is wrong: no retry mends that.
          if (response.status < 500 && response.status !== 408 && response.status !== 429) throw new AbortError(refused);
          throw refused;
        },
        { retries: o.retries ?? 3, minTimeout: o.minDelayMs ?? 1_000, factor: 3, randomize: false },
      );
      this.#view = { ...this.#view, last_ok_at: new Date(this.#now()).toISOString() };
      o.log.info('alert.sent', { cause: alert.cause, origin });
    } catch (error) {
      const reason = error instanceof Refused ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.#failed(reason);
      o.log.warn('alert.failed', { cause: alert.cause, origin, reason });
    }
  }

  #failed(reason: string): void {
    this.#view = { ...this.#view, last_failed_at: new Date(this.#now()).toISOString(), last_failure: reason, failed: this.#view.failed + 1 };
  }
}
