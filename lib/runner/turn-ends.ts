/**
 * Every end of a turn's run, decided and written to its lease in one place
 * (`end`); the handle only records what its run came to. A run that ended
 * (answered, parked, interrupted, nothing to say) is finished; one that stood
 * down at the fence under a lease still its own is handed back. A failure
 * goes back through the turn's lease (its handle classifies it and tells the
 * person), and then the store is looked at when its retry is due, the owner
 * is told of a dead letter, or, with no lease the store would take, the turn
 * is kept for the store (the journal, or memory) and run again when the
 * store answers (`runKept`). A turn handed back at shutdown goes back through
 * its lease, a late claim's, or the journal. A run that ended before its
 * claim was confirmed is finished under the confirm's lease when it answers.
 */
import type { Logger } from '../log/index.js';
import type { ClaimKind } from '../store/index.js';
import type { TurnLease, DeadTurn } from '../lease/index.js';
import type { TurnHandle } from '../turn/index.js';
import { deliveryLeaseRequest, FORM_KIND_FIELD, workIdOf, type Leasable } from '../delivery/index.js';
import type { TurnJournal } from './journal.js';
import type { Turn } from './turn.js';

/**
 * What ended a turn's run, as the runner saw it. `ran`: its listener returned
 * (its handle's outcome says how), under its own lease or, for a run that
 * ended before its claim was confirmed, the confirm's (`lease`).
 */
export type RunEnd = { kind: 'ran'; lease?: TurnLease } | { kind: 'failed'; error: unknown } | { kind: 'handed-back'; mayHavePosted: boolean };

export interface TurnEndsOptions {
  log: Logger;
  /** Where turns go when the store will not take them (AUTOHUB_JOURNAL). */
  journal?: Pick<TurnJournal, 'keep' | 'take' | 'path'> | undefined;
  /** A turn was handed back: its retry is due in `ms`, so the store is looked at then. */
  lookIn?: ((ms: number) => void) | undefined;
  /** A turn became a dead letter (told once, by the copy that made it so). */
  deadLetter?: ((dead: DeadTurn) => void) | undefined;
  /** Turns kept for the store now: the owner is told (lib/notice, once an hour at most). */
  waitingOnStore?: ((count: number) => void) | undefined;
  /** The turn's handle (made once). */
  handleOf: (t: Turn) => TurnHandle;
  /** The lease a failing turn goes back through: its own, the confirm's, or a late claim's. */
  leaseNow: (t: Turn) => Promise<TurnLease | undefined>;
  /** A late claim's lease for a turn that holds none (its claim failed open), if the store takes it. */
  reclaimed: (t: Turn) => Promise<TurnLease | undefined>;
  /** The turn is no longer the runner's (a takeover of its key is run afresh). */
  forget: (t: Turn) => void;
  /** A kept turn claimed and run again, like a live delivery. */
  inject: (envelope: Record<string, unknown>) => Promise<ClaimKind | 'fail-open'>;
}

export class TurnEnds {
  /** Failed turns the store would not take and no journal holds (AUTOHUB_JOURNAL off or unwritable): run again once it answers. */
  readonly #parked: Record<string, unknown>[] = [];
  /** Turns kept for the store (here or in the journal) since the last drain. */
  #waitingOnStore = 0;
  #draining = false;

  constructor(private readonly o: TurnEndsOptions) {}

  /** Failed turns kept for the store since the last drain (its journal, or here). */
  get waitingOnStore(): number {
    return this.#waitingOnStore;
  }

  /** What follows the end of `t`'s run. */
  async end(t: Turn, what: RunEnd): Promise<void> {
    if (what.kind === 'handed-back') return this.#handBack(t, what.mayHavePosted);
    const { o } = this;
    const handle = o.handleOf(t);
    if (what.kind === 'ran') return this.#ran(handle, what.lease ?? t.fence.lease);
    const outcome = handle.outcome;
    if (outcome && outcome.kind !== 'abandoned') {
      // Its end was reached (its reply is in the thread, or its question): the throw after it does not make it a
      // failure. Failed, it was run again, and a command's or a click's answer cannot be read back first.
      o.log.warn('turn.failed_after_end', { ...t.logFields, end: outcome.kind, error: what.error });
      return this.#ran(handle, t.fence.lease);
    }
    t.gate.answer(500, undefined, { 'x-autohub-claim': t.logFields.claim as string });
    const end = await handle.failed(what.error, {
      expired: t.expired === true,
      fields: t.logFields,
      fail: async (failure) => {
        const lease = await o.leaseNow(t);
        return lease && { key: lease.key, attempts: lease.attempts, ...(await lease.fail(failure)) };
      },
    });
    t.trace?.end(end.kind);
    if (end.kind === 'retry') o.lookIn?.(end.retryInMs);
    else if (end.kind === 'dead') this.#deadLetter(t, end.key, end.reason, end.attempts);
    // Past its deadline the store cannot record it (its handle told the person): the owner is told all the same.
    else if (end.kind === 'unleased') {
      if (t.expired) this.#deadLetter(t, t.delivery.claimKeys[0] ?? '', end.failure.reason, 1);
      else this.#keepForStore(t, end.failure.ambiguous);
    }
  }

  /**
   * A run that ended, written to its lease as its handle recorded it: finished with its reply (none: nothing
   * to say); stood down at the fence, a lease still its own (attached after the run lost an older one) goes
   * back for another run, and one another copy holds is left to it.
   */
  async #ran(handle: TurnHandle, lease: TurnLease | undefined): Promise<void> {
    const outcome = handle.outcome;
    if (!lease) return;
    if (outcome?.kind === 'abandoned') {
      if (!lease.lost && !lease.finished) await lease.fail({ kind: 'transient', ambiguous: true, free: true, reason: 'stood down at the fence' });
      return;
    }
    const ts = outcome?.kind === 'parked' ? null : (outcome?.ts ?? null);
    await lease.finish(ts, outcome?.kind === 'answered' ? outcome.record : undefined);
  }

  /** The owner is told of a dead letter (the copy that made it so). */
  #deadLetter(t: Turn, key: string, reason: string, attempts: number): void {
    this.o.deadLetter?.({ key, eventId: workIdOf(t.delivery), channel: channelOf(t.delivery), reason, attempts });
  }

  /** One acked turn handed back at shutdown: through its lease, a late claim's lease, or the local journal; each logged. */
  async #handBack(t: Turn, mayHavePosted: boolean): Promise<void> {
    const { o } = this;
    o.forget(t);
    const lease = t.fence.lease ?? (await o.reclaimed(t));
    if (lease) {
      const reply = await lease.fail({ kind: 'transient', ambiguous: mayHavePosted, free: true, reason: 'handed back at shutdown' });
      o.log.info('turn.handed_back', { ...t.logFields, outcome: reply.reply });
      if (reply.reply === 'retry') {
        o.lookIn?.(0);
        return;
      }
      if (reply.reply !== 'unreachable') return;
    }
    const envelope = storedEnvelope(t.delivery, mayHavePosted);
    if (o.journal?.keep(envelope)) o.log.warn('turn.journaled', { ...t.logFields, detail: 'the store would not take it back: the next start runs it' });
    else o.log.error('turn.dropped_at_shutdown', { ...t.logFields, detail: o.journal ? 'the journal could not be written' : 'AUTOHUB_JOURNAL is off' });
  }

  /**
   * A failed turn that holds no lease, and the store would not take a late
   * claim for its retry (a spent quota, a full Redis, an outage past the
   * window): kept here, in the journal as shutdown keeps turns (or in memory
   * without one), and run again once the store answers (`runKept`). The
   * owner is told that turns wait on the store. Never only a log line.
   */
  #keepForStore(t: Turn, mayHavePosted: boolean): void {
    const { o } = this;
    const envelope = storedEnvelope(t.delivery, mayHavePosted);
    if (o.journal?.keep(envelope)) o.log.warn('turn.journaled', { ...t.logFields, detail: 'the store would not take its retry: run again once it answers' });
    else {
      this.#parked.push(envelope);
      o.log.warn('turn.kept', { ...t.logFields, detail: 'the store would not take its retry: kept in memory until it answers' });
    }
    this.#waitingOnStore += 1;
    o.waitingOnStore?.(this.#waitingOnStore);
  }

  /**
   * Every turn kept for the store, run again: at start (what a stopping copy
   * journaled) and each time the store answers after it would not take a
   * failed turn's retry. Each is claimed like a live delivery (`inject`: one
   * answered meanwhile is a duplicate); one the store still refuses is kept
   * again, and counted, so the next answer of the store runs it (before, a
   * journaled turn refused at start waited for the next start). Costs nothing
   * while nothing is kept.
   */
  async runKept(why: 'start' | 'store answered'): Promise<void> {
    const { o } = this;
    if (this.#draining || (why !== 'start' && this.#waitingOnStore === 0)) return;
    this.#draining = true;
    this.#waitingOnStore = 0;
    try {
      let fromJournal: Record<string, unknown>[] = [];
      try {
        const taken = o.journal?.take();
        fromJournal = taken?.envelopes ?? [];
        if (taken && taken.unreadable > 0) {
          o.log.error('journal.entries_unreadable', { path: o.journal?.path, count: taken.unreadable, detail: 'sealed under another store key' });
        }
      } catch (error) {
        o.log.error('journal.unreadable', { path: o.journal?.path, error });
      }
      const envelopes = [...this.#parked.splice(0), ...fromJournal];
      for (const envelope of envelopes) {
        const claim = await o.inject(envelope).catch(() => 'fail-open' as const);
        if (claim === 'fail-open') {
          if (!o.journal?.keep(envelope)) this.#parked.push(envelope);
          this.#waitingOnStore += 1;
        }
        o.log.info('journal.drained', { eventId: envelope.event_id, claim });
      }
      if (this.#waitingOnStore > 0) o.waitingOnStore?.(this.#waitingOnStore);
    } finally {
      this.#draining = false;
    }
  }
}

/** An event's type and channel, read from its envelope. */
export function eventOf(body: Record<string, unknown>): { type?: string; channel?: string } {
  const event = body.event as { type?: unknown; channel?: unknown } | undefined;
  return {
    ...(typeof event?.type === 'string' ? { type: event.type } : {}),
    ...(typeof event?.channel === 'string' ? { channel: event.channel } : {}),
  };
}

/** The channel a piece of work was asked in (for dead letters and the status page). */
function channelOf(delivery: Leasable): string | undefined {
  return delivery.kind === 'event' ? eventOf(delivery.body).channel : deliveryLeaseRequest(0, delivery)?.channel;
}

/** What the store and the journal keep of a piece of work: an event's envelope, or a form's body marked with its kind. */
function storedEnvelope(delivery: Leasable, mayHavePosted: boolean): Record<string, unknown> {
  if (delivery.kind !== 'event') return { ...delivery.body, [FORM_KIND_FIELD]: delivery.kind };
  return mayHavePosted ? { ...delivery.body, autohub_recovered: true } : delivery.body;
}
