/**
 * What a stopping copy does with its turns: those that never started (waiting
 * for a slot or for their conversation) go back to the store at once; past
 * the drain, those still running get their deadline now, and those running
 * without a lease (their claims failed open) are handed back through a late
 * claim or the journal, not left to die with the process unknown to any store.
 * Each goes back through `TurnEnds.end` (lib/runner/turn-ends.ts).
 */
import type { Slots } from './slots.js';
import type { TurnEnds } from './turn-ends.js';
import type { Turn } from './turn.js';

export interface ShutdownOptions {
  /** Turns running or waiting here, by their primary claim key (the runner's). */
  here: ReadonlyMap<string, Turn>;
  /** Turns waiting for their conversation, each with its stop (the runner's). */
  admitting: Map<Turn, AbortController>;
  slots: Slots<Turn>;
  ends: Pick<TurnEnds, 'end'>;
  /** A running turn's deadline, now (`ctx.signal` aborts, then its grace). */
  expire: (t: Turn, why: string) => void;
}

export class Shutdown {
  constructor(private readonly o: ShutdownOptions) {}

  /** Past the drain: every running turn's `ctx.signal` aborts (its deadline), so a model call stops paying. */
  expireAll(why: string): void {
    const { o } = this;
    for (const t of o.here.values()) if (!o.slots.waits(t)) o.expire(t, why);
  }

  /** Turns that never started go back to the store at once, for another copy. */
  async handBack(): Promise<void> {
    const { o } = this;
    const waiting = o.slots.takeWaiting();
    // Turns waiting for their conversation go back too, their places kept: the copy that takes them keeps the order.
    const conversing = [...o.admitting];
    for (const [, stop] of conversing) stop.abort(new Error('this copy is stopping'));
    o.admitting.clear();
    await Promise.all([...waiting, ...conversing.map(([t]) => t)].map((t) => o.ends.end(t, { kind: 'handed-back', mayHavePosted: false })));
  }

  /**
   * After the drain: turns still running here that hold no lease (their
   * claims failed open) would die with the process, unknown to any store.
   * Each is claimed late with a lease and handed back, or journaled; the next
   * run reads the thread first (this one may have posted).
   */
  async abandonUnleased(): Promise<void> {
    const { o } = this;
    const running = [...o.here.values()].filter((t) => t.fence.lease === undefined && !o.slots.waits(t));
    await Promise.all(running.map((t) => o.ends.end(t, { kind: 'handed-back', mayHavePosted: true })));
  }
}
