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
  #lastAcceptedAt = -Infinity;
  #tail: Promise<void> = Promise.resolve();
  /** Callers waiting their turn behind the window or the pace. */
  #queued = 0;
  readonly #o: Required<GateOptions>;

  constructor(options: GateOptions) {
    this.#o = { ...options, maxPaceMs: options.maxPaceMs ?? 2000, quietMs: options.quietMs ?? 10_000 };
  }

  /** When the window reopens (ms since the epoch); 0 when it never closed. */
  get reopenAt(): number {
    return this.#reopenAt;
  }

  /**
   * About how long a call made now would wait before it goes out: the closed
   * window, or the pace behind the last call and every caller already queued.
   * 0 when it would go at once.
   */
  waitMs(): number {
    const now = this.#o.now();
    if (now >= this.#reopenAt && now >= this.#pacedUntil && this.#queued === 0) return 0;
    const next = Math.max(this.#reopenAt, this.#lastSendAt + this.#paceMs);
    return Math.max(0, next - now) + this.#queued * this.#paceMs;
  }

  /**
   * A call was accepted; `answeredAt` is when its answer came back. The
   * answer's time, not the send's: a first request on a new connection can
   * leave long before the server starts its window, which would overstate
   * the window's length.
   */
  accepted(answeredAt: number): void {
    this.#lastAcceptedAt = Math.max(this.#lastAcceptedAt, answeredAt);
  }

  #raisePace(lengthMs: number): void {
    const pace = Math.min(this.#o.maxPaceMs, lengthMs) * PACE_MARGIN + PACE_SLACK_MS;
    if (this.#o.now() >= this.#pacedUntil) this.#paceMs = 0;
    this.#paceMs = Math.max(this.#paceMs, pace);
  }

  /**
   * Close the window until `reopenAt` and pace later calls. Retry-After is the
   * time *left* in the window, not its length. The length is read as the time
   * from the last accepted call (which likely closed the window) to the
   * reopening, when that is at most twice the time left (a refusal in the
   * first half of the window) or half again the present pace (pacing a
   * little too fast); else as the time left. The pace only grows
   * while paced, so it converges on the method's interval. A window that is
   * our own default (Slack named none) teaches nothing about the pace.
   */
  close(reopenAt: number, windowMs: number, fromSlack = true): void {
    this.#reopenAt = Math.max(this.#reopenAt, reopenAt);
    // The first call after the window goes at `reopenAt` exactly; pacing spaces the ones after it.
    this.#lastSendAt = -Infinity;
    if (fromSlack) {
      const sinceAccepted = reopenAt - this.#lastAcceptedAt;
      const plausible = sinceAccepted > windowMs && sinceAccepted <= Math.max(2 * windowMs, 1.5 * this.#paceMs);
      this.#raisePace(plausible ? sinceAccepted : windowMs);
    }
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
    this.#queued++;
    try {
      try {
        await previous;
      } finally {
        this.#queued--;
      }
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
