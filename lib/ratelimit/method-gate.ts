/**
 * One Web API method's window, local to this process.
 *
 * Open: calls go out side by side. After a refusal the gate closes until the
 * window Slack named has passed, then stays *paced*: one call in flight at a
 * time, each at least one window after the last, until the method has been
 * quiet for a while. Without pacing, the callers that queued for the window
 * would all go out the moment it reopened, and all but one would land in the
 * next closed window.
 */
import type { Clock, Sleep } from '../time/index.js';

export interface GateOptions {
  now: Clock;
  sleep: Sleep;
  /** Longest spacing pacing will impose, whatever the window. @default 2000 */
  maxPaceMs?: number;
  /** Pacing ends after this long without a call of the method. @default 10000 */
  quietMs?: number;
}

/** Spacing margin: the server measures arrival, we measure departure; jitter must not put a call 1 ms early. */
const PACE_MARGIN = 1.02;
const PACE_SLACK_MS = 1;

export class MethodGate {
  #reopenAt = 0;
  #paceMs = 0;
  #pacedUntil = 0;
  #lastSendAt = -Infinity;
  #tail: Promise<void> = Promise.resolve();
  readonly #o: Required<GateOptions>;

  constructor(options: GateOptions) {
    this.#o = { ...options, maxPaceMs: options.maxPaceMs ?? 2000, quietMs: options.quietMs ?? 10_000 };
  }

  /** When the window reopens (ms since the epoch); 0 when it never closed. */
  get reopenAt(): number {
    return this.#reopenAt;
  }

  /** Close the window until `reopenAt` and pace later calls by the window's length. */
  close(reopenAt: number, windowMs: number): void {
    this.#reopenAt = Math.max(this.#reopenAt, reopenAt);
    // The first call after the window goes at `reopenAt` exactly; pacing spaces the ones after it.
    this.#lastSendAt = -Infinity;
    this.#paceMs = Math.min(this.#o.maxPaceMs, windowMs) * PACE_MARGIN + PACE_SLACK_MS;
    this.#pacedUntil = Math.max(this.#pacedUntil, this.#reopenAt + this.#o.quietMs);
  }

  /**
   * Run `send` when the gate allows. `send` returns what it learned; while
   * paced, the next caller waits for it. `waitBudget(ms)` is asked before
   * any wait and may refuse it (the call's own time budget).
   */
  async pass<T>(send: () => Promise<T>, beforeWait: (waitMs: number) => void): Promise<T> {
    const now = this.#o.now();
    if (now >= this.#reopenAt && now >= this.#pacedUntil) {
      this.#lastSendAt = now;
      return send();
    }
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      const at = Math.max(this.#reopenAt, this.#lastSendAt + this.#paceMs);
      const wait = at - this.#o.now();
      if (wait > 0) {
        beforeWait(wait);
        await this.#o.sleep(wait);
      }
      this.#lastSendAt = this.#o.now();
      this.#pacedUntil = Math.max(this.#pacedUntil, this.#lastSendAt + this.#o.quietMs);
      return await send();
    } finally {
      release();
    }
  }
}
