/**
 * The end of a turn that ran, decided and sent to the store once, by one
 * owner: the turn's handle holds one `TurnEnding` (a turn run without a
 * handle, in a rig that builds none, gets a bare one from the runner). Every
 * way a run ends goes through it: answered (`finish`), failed (handed back for
 * a retry, or a dead letter), stood down (another copy owns it; a newer token
 * of it held here goes back), cut off past its deadline.
 *
 * The runner only schedules: it hands over what it saw (the listener
 * returned, or threw, or the grace ran out) and learns the end as a
 * `TurnEnd`, to wake the reaper for a retry, tell the owner of a dead letter,
 * or keep for the store a failed turn that no store would take.
 */
import { classifyTurnFailure, isLeaseLost, TurnDeadlineError, type TurnFailure } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import type { ReleaseReply } from '../store/index.js';

/** How a turn that ran ended: the runner's cue for what to schedule. */
export type TurnEnd =
  /** Finished in the store (or it held no lease to finish). */
  | { kind: 'answered'; ts: string | null }
  /** Another copy owns the turn now and answers it: nothing more here. */
  | { kind: 'stood-down' }
  /** Handed back: the store schedules its next run `retryInMs` from now. */
  | { kind: 'retry'; retryInMs: number }
  /** A dead letter (`recorded`: the store holds it; otherwise only the owner can be told). */
  | { kind: 'dead'; recorded: boolean; key?: string; reason: string; attempts: number }
  /** Failed without a lease and no store would take it: kept for the store by the runner (`ambiguous`: it may have posted). */
  | { kind: 'unkept'; ambiguous: boolean }
  /** Failed, and the store answered its end with `reply` (lost, unreachable): nothing to schedule. */
  | { kind: 'unsettled'; reply: ReleaseReply };

/** What the ending needs of the turn's lease (lib/lease's TurnLease is one). */
export interface EndingLease {
  readonly key: string;
  readonly attempts: number;
  readonly lost: boolean;
  readonly finished: boolean;
  finish(replyTs: string | null, stream?: { how: string; chunks: number; ms: number }): Promise<void>;
  fail(failure: TurnFailure): Promise<{ reply: ReleaseReply; retryInMs?: number }>;
}

/** What the runner saw of a failed run, for the ending to decide with. */
export interface FailedRun {
  /** The turn's log fields (kind, eventId, claim, ...), on `turn.failed` and `turn.abandoned`. */
  logFields: Record<string, unknown>;
  /** Its deadline passed: whatever it threw, another run would hang again. */
  expired: boolean;
  /** The error as the turn threw it (Bolt's wrapper taken off), for the logs. */
  own: unknown;
  /**
   * The lease the failure goes back through: the turn's, or one claimed now
   * for a turn whose claim failed open (the runner's to claim); undefined
   * when the store would not give one.
   */
  leaseForFailure: () => Promise<EndingLease | undefined>;
}

export interface TurnEndingOptions {
  /** The turn's lease as it is now (one may be attached late). */
  lease: () => EndingLease | undefined;
  log: Logger;
  /** What the person hears on a long retry or a dead letter (the handle's notes); none without a handle. */
  notes?: { retrying(attempts: number, retryInMs: number): Promise<void>; dead(): Promise<void> } | undefined;
}

export class TurnEnding {
  /** The end once decided: every later ask gets the same one, and the store hears of it once. */
  #decided: Promise<TurnEnd> | undefined;
  /** An answer given while the turn held no lease: a lease attached before the run returns is finished with it. */
  #answeredTs: string | null = null;

  constructor(private readonly o: TurnEndingOptions) {}

  /** Whether the turn's end is decided. */
  get ended(): boolean {
    return this.#decided !== undefined;
  }

  #once(decide: () => Promise<TurnEnd>): Promise<TurnEnd> {
    this.#decided ??= decide();
    return this.#decided;
  }

  /**
   * The turn answered (`ts`: the reply, null: nothing posted). Without a lease
   * now (its claim failed open) nothing is decided yet: `settled` finishes a
   * lease attached meanwhile with this answer.
   */
  answered(ts: string | null, stream?: { how: string; chunks: number; ms: number }): Promise<TurnEnd> {
    const lease = this.o.lease();
    if (!lease && !this.#decided) {
      this.#answeredTs = ts;
      return Promise.resolve({ kind: 'answered', ts });
    }
    return this.#once(async () => {
      await lease?.finish(ts, stream);
      return { kind: 'answered', ts };
    });
  }

  /**
   * The run stood down at the fence: another copy, or another run here, owns
   * the turn. A lease that is still this run's (attached after the run lost
   * an older one) goes back for another run, not counted.
   */
  stoodDown(): Promise<TurnEnd> {
    return this.#once(async () => {
      const lease = this.o.lease();
      if (lease && !lease.lost && !lease.finished)
        await lease.fail({ kind: 'transient', ambiguous: true, free: true, reason: 'stood down at the fence' }).catch(() => undefined);
      return { kind: 'stood-down' };
    });
  }

  /** The listener returned: a turn that ended without an end of its own (nothing to say, or no answer asked) is finished. */
  settled(): Promise<TurnEnd> {
    return this.#once(async () => {
      const ts = this.#answeredTs;
      await this.o.lease()?.finish(ts);
      return { kind: 'answered', ts };
    });
  }

  /** The run failed (it threw, its conversation's wait failed, or its grace ran out): retried, dead-lettered, or kept for the store. */
  failed(error: unknown, run: FailedRun, before?: () => Promise<void>): Promise<TurnEnd> {
    return this.#once(async () => {
      await before?.().catch(() => undefined);
      return this.#fail(error, run);
    });
  }

  async #fail(error: unknown, run: FailedRun): Promise<TurnEnd> {
    const { log, notes } = this.o;
    if (isLeaseLost(error) || this.o.lease()?.lost) {
      // Another copy owns the turn now and answers it: this one stands down, and nothing is retried here.
      log.warn('turn.abandoned', { ...run.logFields, reason: 'this copy no longer owns the turn' });
      return { kind: 'stood-down' };
    }
    // Past its deadline, whatever it threw in its grace, the turn is over: another run would hang again.
    const failure = classifyTurnFailure(run.expired && !(error instanceof TurnDeadlineError) ? new TurnDeadlineError('the retry window is over') : error);
    const lease = await run.leaseForFailure();
    if (!lease) {
      log.error('turn.failed', { ...run.logFields, failure: failure.kind, reason: failure.reason, error: run.own });
      if (!run.expired) return { kind: 'unkept', ambiguous: failure.ambiguous };
      // Past its deadline and the store cannot record it: the person and the owner are told all the same.
      void notes?.dead();
      return { kind: 'dead', recorded: false, reason: failure.reason, attempts: 1 };
    }
    const { reply, retryInMs } = await lease.fail(failure);
    log.warn('turn.failed', { ...run.logFields, failure: failure.kind, reason: failure.reason, outcome: reply, retryInMs, error: run.own });
    if (reply === 'retry' && retryInMs !== undefined) {
      if (!failure.free) void notes?.retrying(lease.attempts, retryInMs);
      return { kind: 'retry', retryInMs };
    }
    if (reply === 'dead') {
      void notes?.dead();
      return { kind: 'dead', recorded: true, key: lease.key, reason: failure.reason, attempts: lease.attempts };
    }
    return { kind: 'unsettled', reply };
  }
}
