/**
 * The runner's slots: at most `max` turns run at once and the rest wait, in
 * arrival order, for the next slot to come free; a turn a person waits on
 * the moment (a click, a slash command) waits ahead of the others. It counts
 * and queues only; what a turn is, holds or writes is the runner's
 * (lib/runner/turn-runner.ts).
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
  /** Turns a person waits on the moment: each freed slot goes to the oldest of these first. */
  readonly #first: T[] = [];
  readonly #waiting: T[] = [];

  constructor(private readonly o: SlotsOptions<T>) {}

  /** Turns running now. */
  get inFlight(): number {
    return this.#running.size;
  }

  /** Turns waiting for a free slot. */
  get queued(): number {
    return this.#first.length + this.#waiting.length;
  }

  /** How many more turns could start now. */
  get capacity(): number {
    return Math.max(0, this.o.max - this.#running.size - this.queued);
  }

  /**
   * A slot now (`start`), or a place at the back of the queue for one. `first`: a person waits on this turn the
   * moment (a click on a question, a slash command): it waits ahead of the turns that are not. Behind a queue of
   * mentions on a copy back from a crash, the person's click on a question waited past the question's timeout.
   */
  take(t: T, o: { first?: boolean } = {}): void {
    if (this.#running.size >= this.o.max) {
      (o.first ? this.#first : this.#waiting).push(t);
      return;
    }
    this.o.start(t);
  }

  /**
   * A started turn's slot, held until the function handed back is called
   * (once; again is nothing): the slot leaves the count, `ended` runs, then
   * the oldest waiting turn starts in it (of those a person waits on, if
   * any), or `slotFree` is told.
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
      const next = this.#first.shift() ?? this.#waiting.shift();
      if (next !== undefined) this.o.start(next);
      else this.o.slotFree?.();
    };
  }

  /** Whether `t` waits for a slot (it has not started). */
  waits(t: T): boolean {
    return this.#first.includes(t) || this.#waiting.includes(t);
  }

  /** Every waiting turn, taken out of the queue (a stopping copy hands them back). */
  takeWaiting(): T[] {
    return [...this.#first.splice(0), ...this.#waiting.splice(0)];
  }

  /** Resolves when no turn runs or waits here. */
  async drained(): Promise<void> {
    while (this.#running.size > 0 || this.queued > 0) await Promise.allSettled([...this.#running]);
  }
}
