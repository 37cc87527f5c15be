/**
 * Fires a copy's schedules (lib/schedule/spec.ts): at each slot, the firing
 * is injected into the runner like a mention the catch-up sweep found
 * (`inject`), under the slot's own event id, so it is claimed once across
 * the copies and runs once, wherever it was claimed.
 *
 * Both copies fire every slot: the hub at the slot, the cloud copy
 * `graceMs` after it, so while the hub is up its claim is first and the
 * cloud copy's finds it taken (a duplicate: the one store command an idle
 * schedule costs a firing beyond the turn's own), and while the hub is dark
 * the cloud copy runs the slot `graceMs` late. No timer runs between two
 * slots but the one to the next: no store command between firings.
 *
 * A timer that fires late by less than a slot's lateness bound (the grace
 * and a minute: a loaded machine, a loop that stalled) fires the slots it
 * passed too (up to `CATCH_UP_SLOTS`), not marked late. Slots missed while
 * no copy ran (found at start, or by a timer later than that: a Mac that
 * slept): with `missed: 'latest'` the latest one within a claim's life runs
 * once, late (`late` on the firing, and the answer says so); with `skip`
 * none does. A slot the other copy ran is a duplicate of its claim, so
 * trying it costs one command and runs nothing.
 */
import type { Logger } from '../log/index.js';
import { CLAIM_TTL_SECONDS } from '../store/index.js';
import { scheduleEnvelope } from './envelope.js';
import type { Schedule } from './spec.js';

/** What the runner's inject answers: the slot claimed here, run by another copy, or not asked (the store away). */
export type InjectOutcome = 'claimed' | 'duplicate' | 'fail-open';

/** A timer: `fn` after `ms`; returns its cancel. */
export type After = (ms: number, fn: () => void) => () => void;

export interface SchedulerOptions {
  schedules: readonly Schedule[];
  role: 'hub' | 'cloud';
  instance: string;
  inject: (envelope: Record<string, unknown>) => Promise<InjectOutcome | string>;
  log: Logger;
  now?: () => number;
  after?: After;
  /** How long after a slot the cloud copy fires it (the hub fires at the slot). @default 30000 */
  graceMs?: number;
  /** A store that did not answer: the slot is tried again this much later. @default 15000 */
  retryMs?: number;
}

/** What the health body and /autohub status show of each schedule (from memory: no store command). */
export interface ScheduleView {
  name: string;
  every: string;
  target: string;
  missed: 'latest' | 'skip';
  next_slot: string | null;
  /**
   * The last slot this copy saw run: by this copy (`instance`), or by the other (its role; or this copy before a
   * restart). `at`: when this copy ran it, or found it taken.
   */
  last_run: { slot: string; at: string; by: string; late: boolean } | null;
}

/** A slot run this long after it is late: the cloud copy's grace and a minute. */
export const lateAfterMs = (graceMs: number): number => graceMs + 60_000;

/** The most slots a late timer fires beside the newest due one (those it passed, each not late yet). */
export const CATCH_UP_SLOTS = 10;

/** The oldest missed slot still tried: a claim's life less an hour, so a slot already run is still a duplicate. */
export const MISSED_REACH_MS = (CLAIM_TTL_SECONDS - 3600) * 1000;

const realAfter: After = (ms, fn) => {
  // setTimeout holds at most 2^31-1 ms: a longer wait is a look then, and another timer.
  const timer = setTimeout(fn, Math.min(ms, 2 ** 31 - 1));
  timer.unref?.();
  return () => clearTimeout(timer);
};

export class Scheduler {
  readonly #now: () => number;
  readonly #after: After;
  readonly #graceMs: number;
  readonly #delay: number;
  /** The latest slot of each schedule this copy has fired (or skipped): never fired again here. */
  readonly #fired = new Map<string, number>();
  readonly #last = new Map<string, ScheduleView['last_run']>();
  #cancel: (() => void) | undefined;
  #running = false;

  constructor(private readonly o: SchedulerOptions) {
    this.#now = o.now ?? Date.now;
    this.#after = o.after ?? realAfter;
    this.#graceMs = o.graceMs ?? 30_000;
    this.#delay = o.role === 'hub' ? 0 : this.#graceMs;
  }

  get size(): number {
    return this.o.schedules.length;
  }

  /** Fire what is due now (a missed slot, by each schedule's `missed`), then each slot as it comes. */
  start(): void {
    if (this.#running || this.o.schedules.length === 0) return;
    this.#running = true;
    const now = this.#now();
    for (const s of this.o.schedules) {
      // The slot before the newest due one: what start tries is at most the newest.
      const latest = s.latestAtOrBefore(now - this.#delay);
      if (latest !== undefined) this.#fired.set(s.name, latest - 1);
    }
    this.#tick();
  }

  stop(): void {
    this.#running = false;
    this.#cancel?.();
    this.#cancel = undefined;
  }

  /** Each schedule's next slot and last run, as this copy knows them. */
  view(): ScheduleView[] {
    const now = this.#now();
    return this.o.schedules.map((s) => {
      const next = s.nextAfter(now);
      return {
        name: s.name,
        every: s.every,
        target: 'channel' in s.target ? `<#${s.target.channel}>` : `<@${s.target.dm}>`,
        missed: s.missed,
        next_slot: next === undefined ? null : new Date(next).toISOString(),
        last_run: this.#last.get(s.name) ?? null,
      };
    });
  }

  /** Fire each schedule's due slots not fired yet (each one not late, and the newest), then wait for the next one due. */
  #tick(): void {
    if (!this.#running) return;
    const now = this.#now();
    for (const s of this.o.schedules) {
      const newest = s.latestAtOrBefore(now - this.#delay);
      const fired = this.#fired.get(s.name);
      if (newest === undefined || newest <= (fired ?? -Infinity)) continue;
      this.#fired.set(s.name, newest);
      // Each slot since the one last fired here that is not late yet runs too: a timer that fired late, or a loop
      // that stalled, on a copy that was up (before, only the newest ran, and with the other copy down the rest were
      // lost). Older ones were missed while no copy ran: only the newest due slot, as `missed` says.
      if (fired !== undefined) {
        const passed: number[] = [];
        for (let slot = s.nextAfter(Math.max(fired, now - lateAfterMs(this.#graceMs) - 1)); slot !== undefined && slot < newest; slot = s.nextAfter(slot))
          passed.push(slot);
        // A burst bounded: a long stall of a per-second schedule (with a long grace) would start hundreds of turns at once.
        const caught = passed.slice(-CATCH_UP_SLOTS);
        if (passed.length > caught.length)
          this.o.log.info('schedule.skipped', {
            schedule: s.name,
            slot: new Date(passed[0]!).toISOString(),
            reason: `${passed.length - caught.length} slots passed by a late timer, past the ${CATCH_UP_SLOTS} it catches up`,
          });
        for (const slot of caught) void this.#fire(s, slot, now);
      }
      void this.#fire(s, newest, now);
    }
    this.#arm();
  }

  #arm(): void {
    this.#cancel?.();
    if (!this.#running) return;
    const now = this.#now();
    let due = Infinity;
    for (const s of this.o.schedules) {
      // After the slot last fired here, not after `now`: the clock read here may be a slot later than the one the tick
      // read (a timer that fires a millisecond early by the wall clock), and that slot is still to fire.
      const next = s.nextAfter(this.#fired.get(s.name) ?? now - this.#delay);
      if (next !== undefined) due = Math.min(due, next + this.#delay);
    }
    if (due === Infinity) return;
    this.#cancel = this.#after(Math.max(0, due - now), () => this.#tick());
  }

  /** A slot run `now` is late: past the grace and a minute (missed while no copy ran). */
  #late(slot: number, now: number): boolean {
    return now - slot > lateAfterMs(this.#graceMs);
  }

  async #fire(s: Schedule, slot: number, now: number): Promise<void> {
    const { log } = this.o;
    const slotIso = new Date(slot).toISOString();
    const late = this.#late(slot, now);
    if (late && (s.missed === 'skip' || now - slot > MISSED_REACH_MS)) {
      log.info('schedule.skipped', { schedule: s.name, slot: slotIso, reason: s.missed === 'skip' ? 'missed' : 'older than a claim' });
      return;
    }
    let outcome: string;
    try {
      outcome = await this.o.inject(scheduleEnvelope({ name: s.name, slotMs: slot, late, target: s.target }));
    } catch (error) {
      log.warn('schedule.inject_failed', { schedule: s.name, slot: slotIso, error });
      outcome = 'fail-open';
    }
    if (outcome === 'claimed') {
      this.#last.set(s.name, { slot: slotIso, at: new Date(now).toISOString(), by: this.o.instance, late });
      log.info('schedule.fired', { schedule: s.name, slot: slotIso, late });
    } else if (outcome === 'duplicate') {
      this.#last.set(s.name, { slot: slotIso, at: new Date(now).toISOString(), by: this.o.role === 'hub' ? 'cloud' : 'hub', late: false });
      log.debug('schedule.taken', { schedule: s.name, slot: slotIso });
    } else {
      // The store did not answer: nobody knows whether the slot ran. Tried again while it is still the newest, or not
      // late yet (a slot a late timer caught up, with a newer one beside it).
      log.warn('schedule.unsure', { schedule: s.name, slot: slotIso, retryInMs: this.o.retryMs ?? 15_000 });
      this.#after(this.o.retryMs ?? 15_000, () => {
        const at = this.#now();
        if (!this.#running || (this.#fired.get(s.name) !== slot && this.#late(slot, at))) return;
        void this.#fire(s, slot, at);
      });
    }
  }
}
