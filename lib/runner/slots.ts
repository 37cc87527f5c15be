/**
 * The runner's slots: at most `max` turns run at once and the rest wait, in
 * arrival order, for the next slot to come free. It counts and queues only;
 * what a turn is, holds or writes is the runner's (lib/runner/turn-runner.ts).
 */

export interface SlotsOptions<T> {
  /** Turns run at once. */
  max: number;
  /** Starts a turn, now or when a slot comes free; it holds its slot from `hold` until it frees it. */
  start: (t: T) => void;
  /** A slot came free and no turn waited for it. */
  slotFree?: (() => void) | undefined;
}

export class Slots<T> {
  readonly #running = new Set<Promise<void>>();
  readonly #waiting: T[] = [];

  constructor(private readonly o: SlotsOptions<T>) {}

  /** Turns running now. */
  get inFlight(): number {
    return this.#running.size;
  }

  /** Turns waiting for a free slot. */
  get queued(): number {
    return this.#waiting.length;
  }

  /** How many more turns could start now. */
  get capacity(): number {
    return Math.max(0, this.o.max - this.#running.size - this.#waiting.length);
  }

  /** A slot now (`start`), or a place at the back of the queue for one. */
  take(t: T): void {
    if (this.#running.size >= this.o.max) {
      this.#waiting.push(t);
      return;
    }
    this.o.start(t);
  }

  /**
   * A started turn's slot, held until the function handed back is called
   * (once; again is nothing): the slot leaves the count, `ended` runs, then
   * the oldest waiting turn starts in it, or `slotFree` is told.
   */
  hold(ended: () => void): () => void {
    let release = () => {};
    const slot = new Promise<void>((resolve) => (release = resolve));
    let freed = false;
    this.#running.add(slot);
    return () => {
      if (freed) return;
      freed = true;
      this.#running.delete(slot);
      ended();
      release();
      const next = this.#waiting.shift();
      if (next !== undefined) this.o.start(next);
      else this.o.slotFree?.();
    };
  }

  /** Whether `t` waits for a slot (it has not started). */
  waits(t: T): boolean {
    return this.#waiting.includes(t);
  }

  /** Every waiting turn, taken out of the queue (a stopping copy hands them back). */
  takeWaiting(): T[] {
    return this.#waiting.splice(0);
  }

  /** Resolves when no turn runs or waits here. */
  async drained(): Promise<void> {
    while (this.#running.size > 0 || this.#waiting.length > 0) await Promise.allSettled([...this.#running]);
  }
}
