/**
 * Running turns through Bolt: each delivery's claim and the lease it wins,
 * the ack (events and most interactivity at once, commands when their
 * listener acks or at the ack deadline), the wait for its conversation, its
 * run in a slot and the run's deadline. Its other rooms, one job each: the
 * slots and their queue (slots.ts; a waiting turn's lease is kept alive, so
 * it survives this copy's death), the confirm of a claim that failed open
 * (claim-confirm.ts), every end of a turn and the journal's drain
 * (turn-ends.ts), and what a stopping copy does with its turns (shutdown.ts).
 *
 * Built by the app (app/parts.ts) and handed to the receiver, which gives it
 * each live delivery to `claim` and runs the work it hands back; the catch-up
 * sweep, the journal and the edge's inbox give it found deliveries (`inject`,
 * through the same `claim`), the reaper takeovers (`resume`). Each lease is
 * made here, under the claim keys its delivery was claimed under, so nothing
 * parses a body twice to name them and no caller handles a lease.
 */
import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import type { ClaimOutcome, Claims, LeaseRequest, Role } from '../store/index.js';
import type { Logger } from '../log/index.js';
import type { ClaimKind, Leases, LeaseSettings, RestoreDetail, RetryPolicy, StreamDetail, Takeover, TurnLine } from '../store/index.js';
import { TurnDeadlineError } from '../errors/index.js';
import { TurnFence, type TurnHandle } from '../turn/index.js';
import { deliveryLeaseRequest, storedDelivery, workIdOf, type Delivery, type Leasable } from '../delivery/index.js';
import { withDeadline } from '../time/index.js';
import { TurnLease, type DeadTurn, type LeaseKeeper, type TurnOutcome } from '../lease/index.js';
import { runStartOf, type DeliveryTracer } from '../telemetry/index.js';
import { AckGate } from './ack-gate.js';
import { eventOf, TurnEnds } from './turn-ends.js';
import { ClaimConfirm } from './claim-confirm.js';
import type { TurnJournal } from './journal.js';
import type { LateAnswers } from './late-answers.js';
import { Shutdown } from './shutdown.js';
import { Slots } from './slots.js';
import { deadlineGraceMs, type AdmitVerdict, type Turn, type BoltTurnContext } from './turn.js';

export interface TurnRunnerOptions {
  /**
   * Claims (a live delivery's, bounded by the ack deadline; a late claim of a
   * turn whose claim failed open; the confirm of a claim that timed out) and
   * the ends of leased turns.
   */
  store: Claims & Pick<Leases, 'commit' | 'finish' | 'release' | 'deadLetter' | 'markStream' | 'restore'>;
  /** Keeps every lease of this copy alive, in one request per renewal. */
  keeper: LeaseKeeper;
  role: Role;
  instance: string;
  log: Logger;
  /** Answer Slack by this many ms after arrival, whatever the turn does. @default 1200 */
  ackDeadlineMs?: number | undefined;
  /** Event turns hold a lease another copy can take over. */
  lease: LeaseSettings;
  /** How a failed turn is tried again. */
  retry: RetryPolicy;
  /** Turns run at once; the rest wait their turn. @default 16 */
  maxTurns?: number | undefined;
  /** A turn was handed back: its retry is due in `ms`, so the store is looked at then. */
  lookIn?: ((ms: number) => void) | undefined;
  /** A turn became a dead letter (told once, by the copy that made it so). */
  deadLetter?: ((dead: DeadTurn) => void) | undefined;
  /** A slot came free. */
  slotFree?: (() => void) | undefined;
  /**
   * Where acked turns go when the store will not take them (AUTOHUB_JOURNAL): at shutdown, and a failed
   * turn whose retry the store could not schedule. `take` empties it (the turns are run again once the store answers).
   */
  journal?: Pick<TurnJournal, 'keep' | 'take' | 'path'> | undefined;
  /** A failed turn is kept here for the store (`count`: turns waiting now): the owner is told (lib/notice, once an hour at most). */
  waitingOnStore?: ((count: number) => void) | undefined;
  /** How long the runner waits between two confirm attempts while the store is away (1 s, doubling). @default realSleep */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /**
   * The handle of each turn: its listener answers through it, and it records
   * what the run came to; the runner's TurnEnds writes that end to the lease
   * (finished, handed back, dead-lettered) and schedules what follows. It
   * writes behind the turn's fence (its lease, attached late too).
   */
  handleFor: (fence: TurnFence, key: string | undefined) => TurnHandle;
  /**
   * Before a turn takes a slot, it may wait for its conversation
   * (lib/conversation: one turn at a time per thread, across the copies).
   * `stop` aborts when this copy stops. Absent: every turn takes a slot at once.
   */
  admit?: ((t: Turn, stop: AbortSignal) => Promise<AdmitVerdict>) | undefined;
  /** A turn ended here, however it ended (turns waiting behind it look again). */
  ended?: ((t: Turn) => void) | undefined;
  /**
   * Where a slash command's or an interaction's answer goes when nobody reads its ack (a takeover, a retry, a
   * kept delivery, a request the edge gave up on, an ack past the deadline), and what catches a `respond()`
   * that Slack refuses: the response_url, else the person by DM (lib/runner/late-answers.ts).
   */
  late?: LateAnswers | undefined;
  /** @default Date.now */
  now?: (() => number) | undefined;
  /** Traces each claim, run and end (lib/telemetry). @default none */
  tracer?: DeliveryTracer | undefined;
}

/** What the ack deadline keeps for the answer itself once the claim is back (or given up): 1,200 - 100 ms for the claim. */
const ANSWER_MARGIN_MS = 100;

/** Events that answer a person: the status page counts these. */
const ANSWERED_EVENTS = new Set(['app_mention', 'message']);

type Resolved = TurnRunnerOptions & { ackDeadlineMs: number; maxTurns: number; now: () => number };

export class TurnRunner {
  /** The Bolt app the turns run through: handed over once, by the receiver's `init(app)`. */
  #app: App | undefined;
  /** At most `maxTurns` running, the rest waiting (lib/runner/slots.ts). */
  readonly #slots: Slots<Turn>;
  /** Turns waiting for their conversation (the admit hook), each with its stop. */
  readonly #admitting = new Map<Turn, AbortController>();
  /** Turns running or waiting here, by their primary claim key: a takeover of one of them is attached, not run twice. */
  readonly #here = new Map<string, Turn>();
  /** Turns past their deadline whose work has not returned (a bot that ignores ctx.signal): for the health body. */
  readonly #pastDeadline = new Set<Turn>();
  /** Deliveries the edge kept, injected here and not yet ended (a question's timeout waits for them: lib/ask). */
  #keptRunning = 0;
  /** Every end that follows a turn's run (lib/runner/turn-ends.ts). */
  readonly #ends: TurnEnds;
  /** What a stopping copy does with its turns (lib/runner/shutdown.ts). */
  readonly #shutdown: Shutdown;

  private readonly o: Resolved;

  constructor(options: TurnRunnerOptions) {
    this.o = { ...options, ackDeadlineMs: options.ackDeadlineMs ?? 1200, maxTurns: options.maxTurns ?? 16, now: options.now ?? Date.now };
    this.#slots = new Slots({ max: this.o.maxTurns, start: (t) => this.#start(t), slotFree: () => this.o.slotFree?.() });
    this.#ends = new TurnEnds({
      ...this.o,
      handleOf: (t) => this.#handle(t),
      leaseNow: (t) => this.#leaseNow(t),
      reclaimed: (t) => this.#reclaimed(t),
      forget: (t) => {
        const key = t.delivery.claimKeys[0];
        if (key !== undefined && this.#here.get(key) === t) this.#here.delete(key);
      },
      inject: (envelope) => this.inject(envelope, { recovered: true }),
    });
    this.#shutdown = new Shutdown({
      here: this.#here,
      admitting: this.#admitting,
      slots: this.#slots,
      ends: this.#ends,
      expire: (t, why) => this.#expire(t, why),
    });
  }

  /** Bolt's app, handed over once (Bolt calls the receiver's `init(app)` as it is built); a second, other app is a bug. */
  attach(app: App): void {
    if (this.#app && this.#app !== app) throw new Error('TurnRunner.attach: this runner runs the turns of another app already');
    this.#app = app;
  }

  /** Slack is answered by this many ms after a delivery arrives, whatever its turn does. */
  get ackDeadlineMs(): number {
    return this.o.ackDeadlineMs;
  }

  /** Whether turns wait their turn in their conversation (an admit hook): then a claim takes the turn's place. */
  get #ordered(): boolean {
    return this.o.admit !== undefined;
  }

  /** Turns running now. */
  get inFlight(): number {
    return this.#slots.inFlight;
  }

  /** Deliveries the edge kept that were injected here and have not ended yet. */
  get keptRunning(): number {
    return this.#keptRunning;
  }

  /** Turns acked and waiting for a free slot. */
  get queued(): number {
    return this.#slots.queued;
  }

  /** Turns acked and waiting for an earlier turn of their conversation (they hold no slot). */
  get conversing(): number {
    return this.#admitting.size;
  }

  /** Turns past their deadline whose work has not returned yet (their slots are freed at the grace's end). */
  get pastDeadline(): number {
    return this.#pastDeadline.size;
  }

  /** Failed turns kept for the store since the last drain (its journal, or here). */
  get waitingOnStore(): number {
    return this.#ends.waitingOnStore;
  }

  /** How many more turns could start now. */
  get capacity(): number {
    return this.#slots.capacity;
  }

  /** Keys of turns here that hold no lease (their claims failed open): this copy's own look never takes them. */
  get unleased(): string[] {
    return [...this.#here].filter(([, t]) => t.fence.lease === undefined).map(([key]) => key);
  }

  /** Resolves when every turn running or waiting now has ended. */
  async drained(): Promise<void> {
    while (this.#slots.inFlight > 0 || this.#slots.queued > 0 || this.#admitting.size > 0) {
      await Promise.allSettled([this.#slots.drained(), ...[...this.#admitting.keys()].map((t) => t.admitted)]);
    }
  }

  /** Past the drain at shutdown: every running turn's `ctx.signal` aborts (its deadline), so a model call stops paying. */
  expireAll(why: string): void {
    this.#shutdown.expireAll(why);
  }

  /** On shutdown: turns that never started go back to the store at once, for another copy. */
  handBack(): Promise<void> {
    return this.#shutdown.handBack();
  }

  /** After the drain: turns still running here without a lease are claimed late and handed back, or journaled. */
  abandonUnleased(): Promise<void> {
    return this.#shutdown.abandonUnleased();
  }

  /**
   * A lease for a claimed event (token 1) or a takeover, under the claim's
   * keys (primary first, as claimed: a write again of a forgotten record
   * takes the same aliases); the runner owns its end.
   */
  #lease(delivery: Leasable, token: number, sentAt: number, takeover?: Takeover): TurnLease {
    const { o } = this;
    const { claimKeys, body } = delivery;
    const key = claimKeys[0]!;
    const aliases = claimKeys.filter((k) => k !== key);
    const event = eventOf(body);
    const answers = event.type !== undefined && ANSWERED_EVENTS.has(event.type);
    const line = (outcome: TurnOutcome, detail: { reason?: string; attempts: number; stream?: StreamDetail }): TurnLine => {
      const at = new Date(o.now()).toISOString();
      const record = {
        at,
        role: o.role,
        instance: o.instance,
        outcome,
        attempts: detail.attempts,
        ...(detail.reason ? { reason: detail.reason } : {}),
        ...(detail.stream ? { stream: detail.stream } : {}),
        ...(takeover ? { takenOver: true } : {}),
      };
      return { line: JSON.stringify(record), cloud: o.role === 'cloud' && outcome === 'answered', at };
    };
    // What the claim wrote (the body without Slack's legacy token, as the receiver stores it), to write it again if the store forgets it.
    const request = deliveryLeaseRequest(o.lease.leaseMs, delivery);
    const restore = request && ((detail: RestoreDetail) => o.store.restore(key, token, { instance: o.instance, role: o.role }, request, aliases, detail));
    return new TurnLease({
      ...(restore ? { restore } : {}),
      store: o.store,
      keeper: o.keeper,
      key,
      token,
      settings: o.lease,
      retry: o.retry,
      log: o.log,
      now: o.now,
      sentAt,
      ...(takeover ? { takeover } : {}),
      ...(answers ? { line } : {}),
    });
  }

  /**
   * Run a turn taken from the lease set (a dead owner's, a retry, a replay):
   * the same listeners, on the stored body, under the new token. Nobody waits for an ack.
   */
  resume(takeover: Takeover, sentAt: number): void {
    const { o } = this;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(takeover.body) as Record<string, unknown>;
    } catch {
      // Sealed under a key this copy does not have: most likely this copy's settings are stale (a
      // signing secret rotated elsewhere, from which the store key is derived). Another copy may open
      // it: hand it back at once, not counted, for a lease; only the retry window ends it (then a dead letter).
      o.log.error('lease.takeover_unreadable', {
        key: takeover.key,
        detail: 'sealed under a store key this copy does not have: check SLACK_SIGNING_SECRET and AUTOHUB_STORE_KEY',
      });
      void o.store.release(takeover.key, takeover.token, {
        delayMs: o.lease.leaseMs,
        reason: 'sealed under another store key',
        ambiguous: takeover.ambiguous,
        free: true,
        policy: o.retry,
      });
      return;
    }
    // The record holds the primary key alone: the aliases its claim took follow from the body, classified once here.
    const stored = storedDelivery(body);
    const claimKeys = [takeover.key, ...(stored?.claimKeys ?? []).filter((k) => k !== takeover.key)];
    const delivery: Leasable = stored ? { ...stored, claimKeys } : { kind: 'event', body, eventId: String(body.event_id ?? ''), teamId: undefined, claimKeys };
    const lease = this.#lease(delivery, takeover.token, sentAt, takeover);
    const own = this.#here.get(takeover.key);
    if (own && own.fence.lease === undefined) {
      // This copy's own turn, still running without a lease: a claim that timed out but landed, its
      // lease lapsed unrenewed. The new token is its lease from now on: the turn is not run twice.
      // (A leased run of this copy whose lease lapsed, frozen say, is fenced out by its stale token:
      // the takeover runs afresh.)
      own.fence.attach(lease);
      lease.start();
      o.log.warn('lease.own_turn', { key: takeover.key, token: takeover.token, eventId: body.event_id });
      return;
    }
    const logFields = {
      kind: delivery.kind,
      eventId: workIdOf(delivery),
      claim: 'claimed',
      takeover: takeover.state,
      token: takeover.token,
      attempt: takeover.attempts,
    };
    o.log.info('lease.takeover', { ...logFields, key: takeover.key });
    this.#run({
      delivery,
      gate: AckGate.detached(),
      receivedAt: o.now(),
      claim: 'claimed',
      retry: { retryNum: undefined, retryReason: undefined },
      logFields,
      fence: new TurnFence(lease),
    });
  }

  /** A claimed or taken-over turn: its ack, its deadline, then its conversation's gate or a slot. */
  #run(t: Turn): void {
    const { o } = this;
    const claimHeader = { 'x-autohub-claim': t.logFields.claim as string };
    // Events, and interactivity other than a form submission, carry nothing in their ack: answer now. (A command
    // whose claim failed open first asks its claim once: answered in time, its ack carries its answer; past the ack
    // deadline, the deadline acks it and its answer goes late, to the response_url.)
    const ackNow = t.delivery.kind === 'event' || (t.delivery.kind === 'interactive' && t.delivery.body.type !== 'view_submission');
    if (ackNow) t.gate.answer(200, undefined, claimHeader);
    const deadline = setTimeout(
      () => {
        if (t.gate.answer(200, undefined, { ...claimHeader, 'x-autohub-ack': 'deadline' })) {
          o.log.warn('delivery.ack_deadline', { ...t.logFields, ackDeadlineMs: o.ackDeadlineMs });
        }
      },
      Math.max(0, o.ackDeadlineMs - (o.now() - t.receivedAt)),
    );
    void t.gate.done.then(() => {
      clearTimeout(deadline);
      if (t.gate.gone) {
        // The edge gave up on this request (its leg's time ran out) before the answer: the answer goes late.
        o.log.warn('delivery.abandoned', { ...t.logFields, afterMs: o.now() - t.receivedAt });
        return;
      }
      // A taken-over turn was acked long ago by the copy that died.
      if (t.fence.lease?.previousState === undefined) o.log.info('delivery.acked', { ...t.logFields, ackMs: o.now() - t.receivedAt });
    });
    t.fence.lease?.start();
    const key = t.delivery.claimKeys[0];
    if (key !== undefined) {
      this.#here.set(key, t);
      if (!t.fence.lease && t.nonce !== undefined) {
        t.confirm = this.#confirmOf(t, key, t.nonce);
        t.fence.confirming(t.confirm);
      }
    }
    if (o.admit) {
      this.#handle(t);
      t.admitted = this.#admit(t, o.admit);
      return;
    }
    this.#slots.take(t, { first: personWaits(t) });
  }

  /** The turn's handle, made once: what its listener answers through, and what ends it. */
  #handle(t: Turn): TurnHandle {
    t.handle ??= this.o.handleFor(t.fence, t.delivery.claimKeys[0]);
    return t.handle;
  }

  /** The turn waits for its conversation, holding no slot (its lease kept alive), then runs, is finished, or is left to its owner. */
  async #admit(t: Turn, admit: NonNullable<TurnRunnerOptions['admit']>): Promise<void> {
    const { o } = this;
    const stop = new AbortController();
    this.#admitting.set(t, stop);
    try {
      const verdict: AdmitVerdict = await admit(t, stop.signal);
      // Handed back at shutdown meanwhile: that is its end here.
      if (!this.#admitting.delete(t)) return;
      if (verdict.kind === 'run') {
        this.#slots.take(t, { first: personWaits(t) });
        return;
      }
      if (verdict.kind === 'skipped') {
        const ts = await this.#handle(t).answerSkipped(t.delivery.body);
        await this.#ends.end(t, { kind: 'ran' });
        o.log.info('turn.replied', { ...t.logFields, ts, stream: 'skipped' });
      }
    } catch (error) {
      // The gate, or the skipped turn's note, failed: the turn's failure, ended as any other's.
      this.#admitting.delete(t);
      await this.#ends.end(t, { kind: 'failed', error });
    }
    this.#over(t);
  }

  /** A turn has ended here: one that never took a slot, or one whose slot is being freed (before the next turn takes it). */
  #over(t: Turn): void {
    const key = t.delivery.claimKeys[0];
    if (key !== undefined && this.#here.get(key) === t) this.#here.delete(key);
    this.#keptEnded(t);
    this.o.ended?.(t);
  }

  /** A kept delivery's turn ended (counted once). */
  #keptEnded(t: Turn): void {
    if (!t.kept) return;
    t.kept = false;
    this.#keptRunning -= 1;
  }

  #start(t: Turn): void {
    const { o } = this;
    const claimHeader = { 'x-autohub-claim': t.logFields.claim as string };
    const handle = this.#handle(t);
    const context: BoltTurnContext = {
      autohubClaim: t.claim,
      autohubInstance: o.instance,
      autohubRole: o.role,
      autohubReceivedAt: t.receivedAt,
      autohubTurn: handle,
    };
    const form = t.delivery.kind === 'event' ? undefined : t.delivery;
    const run = runStartOf(t);
    if (o.tracer && run) t.trace = o.tracer.run(run);
    const body = async () => {
      if (!this.#app) throw new Error('FailoverReceiver.init(app) was not called');
      // A command or a click has no first write to wait at: its claim that failed open is asked once before
      // it runs at all, so a claim that was the other copy's after all runs nothing here (fail fast: one ask;
      // answered past the ack deadline, the deadline acks it and its answer goes late, to the response_url).
      if (form && t.confirm?.asking) {
        await t.confirm.askNow();
        if (t.fence.signal.aborted) return;
      }
      const closeLate = form ? o.late?.open(form, t.arrivedAt) : undefined;
      try {
        await this.#app.processEvent({
          body: t.delivery.body,
          retryNum: t.retry.retryNum,
          retryReason: t.retry.retryReason,
          customProperties: { ...context },
          ack: async (response?: unknown) => {
            if (t.gate.answer(200, response ?? undefined, claimHeader) || !form) return;
            // Nobody reads this ack (a takeover, a retry, a kept delivery, a request the edge gave up on, an ack
            // past the deadline): what it says reaches the person all the same, once (a refusal fails the run).
            await o.late?.answer(form, response, t.arrivedAt);
          },
        });
      } finally {
        closeLate?.();
      }
      // Past its grace the runner ended it already (failed, slot freed): whatever it did since is not its end.
      if (t.cut) return;
      await this.#ends.end(t, { kind: 'ran' });
      // It ran unfenced (its claim failed open, the confirm still asks): the confirm's answer records its end. A
      // stop (the person's Stop, an interrupt, the deadline) is still an end of this copy's; a bar (stood down) is not.
      if (!t.fence.lease && !t.fence.barred) t.confirm?.ranOut();
    };
    const work = (t.trace ? t.trace.within(body) : body()).catch((error: unknown) => (t.cut ? undefined : this.#ends.end(t, { kind: 'failed', error })));
    // A run lasts the retry window at most (from its start here: a wait for a slot is not counted): ctx.signal aborts, then the grace.
    const deadline = setTimeout(() => this.#expire(t, 'the retry window is over'), o.retry.windowMs);
    deadline.unref?.();
    // The slot is freed when the work returns, or at the end of its grace past the deadline, whichever is first.
    const free = this.#slots.hold(() => {
      clearTimeout(deadline);
      this.#over(t);
      t.trace?.end(t.cut ? 'cut_off' : 'ran');
    });
    t.free = free;
    void work.finally(() => {
      t.settled = true;
      this.#pastDeadline.delete(t);
      free();
    });
  }

  /**
   * The turn's deadline: `ctx.signal` aborts with a TurnDeadlineError (its
   * reason, readable by the bot), and the turn gets `deadlineGraceMs` to
   * return. Still running then, it is cut off: no write of it leaves from
   * then on, its open message is closed as interrupted, its slot freed, and
   * it is failed (a dead letter, the owner told), whether or not it listened.
   */
  #expire(t: Turn, why: string): void {
    const { o } = this;
    if (t.expired || t.settled) return;
    t.expired = true;
    this.#pastDeadline.add(t);
    const error = new TurnDeadlineError(why);
    o.log.warn('turn.deadline', { ...t.logFields, reason: why });
    t.handle?.expire(error);
    // Renewals stop at the end of the grace: a lease the fail below cannot end lapses instead of being kept forever.
    const graceMs = deadlineGraceMs(o.retry.windowMs);
    if (t.fence.lease) o.keeper.renewUntil(t.fence.lease.key, o.now() + graceMs);
    const grace = setTimeout(() => void this.#cutOff(t, error), graceMs);
    grace.unref?.();
  }

  async #cutOff(t: Turn, error: TurnDeadlineError): Promise<void> {
    const { o } = this;
    if (t.settled || t.cut) return;
    t.cut = true;
    o.log.error('turn.cut_off', { ...t.logFields, reason: error.why, graceMs: deadlineGraceMs(o.retry.windowMs) });
    t.free?.();
    await t.handle?.cutOff(error.why).catch(() => undefined);
    await this.#ends.end(t, { kind: 'failed', error });
  }

  /**
   * The lease a failing turn goes back through: the one it holds, or (its
   * claim failed open) the answer of the confirm under way, else a late claim.
   */
  async #leaseNow(t: Turn): Promise<TurnLease | undefined> {
    // A claim that timed out is being confirmed: its answer (the one under way) decides whose lease this failure goes back through.
    if (!t.fence.lease && t.confirm) await t.confirm.failing();
    return t.fence.lease ?? (await this.#reclaimed(t));
  }

  /** The confirm of `t`'s claim that failed open (lib/runner/claim-confirm.ts); what it decides is done here. */
  #confirmOf(t: Turn, key: string, nonce: string): ClaimConfirm {
    const { o } = this;
    return new ClaimConfirm({
      store: o.store,
      key,
      nonce,
      leaseMs: o.lease.leaseMs,
      until: t.receivedAt + o.retry.windowMs,
      now: o.now,
      sleep: o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.())),
      here: () => this.#here.get(key) === t,
      leased: () => t.fence.lease !== undefined,
      leaseAt: (sentAt) => this.#lease(t.delivery, 1, sentAt),
      reclaim: () => this.#reclaim(t),
      decided: async (verdict) => {
        if (verdict.kind === 'not-ours') {
          t.fence.bar(`the claim that timed out is another copy's (${verdict.reply})`);
          o.log.warn('claim.not_ours', { ...t.logFields, key, reply: verdict.reply });
          return;
        }
        const { lease } = verdict;
        lease.start();
        if (verdict.ranOut) {
          // The run ended before this answer: its end is written under this lease at once, so nothing runs the turn
          // again. Unrecorded, it lapsed and a takeover ran it a second time: a mention's takeover reads its thread
          // first, but a command's or a click's answer cannot be read back.
          await this.#ends.end(t, { kind: 'ran', lease });
          o.log.info('turn.end_recorded', { ...t.logFields, key, token: lease.token });
          return;
        }
        t.fence.attach(lease);
        o.log.info('claim.confirmed', { ...t.logFields, key, ...(verdict.reclaimed ? { reclaimed: true } : {}) });
      },
    });
  }

  /** A failed turn that never had a lease (its claim failed open): claimed now, if the store lets it (see `#reclaim`). */
  async #reclaimed(t: Turn): Promise<TurnLease | undefined> {
    const { o } = this;
    const lease = await this.#reclaim(t).catch(() => undefined);
    if (lease) o.log.info('turn.reclaimed', { ...t.logFields, key: lease.key, token: lease.token });
    return lease;
  }

  /**
   * A turn that failed without a lease (its claim failed open at the ack):
   * claimed now, with a lease, so the store can schedule its retry. Undefined
   * when it is held already (another copy, or the claim that timed out landed
   * after all: that lease lapses and is taken over) or the store is still away.
   */
  async #reclaim(t: Turn): Promise<TurnLease | undefined> {
    const { o } = this;
    if (t.delivery.claimKeys.length === 0) return undefined;
    const request = deliveryLeaseRequest(o.lease.leaseMs, t.delivery, { ordered: this.#ordered });
    if (!request) return undefined;
    const sentAt = o.now();
    // The turn was acked long ago: this claim is off the ack path (the longer fuse), so a store a little
    // slower than the claim's fuse still answers it.
    const outcome = await o.store.claim(t.delivery.claimKeys, { instance: o.instance, role: o.role }, request, { offAckPath: true });
    return this.#leaseFor(t.delivery, outcome, sentAt);
  }

  /**
   * A delivery's claim, and what it hands back: a duplicate (nothing runs), a
   * probe's outcome (nothing runs), or a turn's work, leased when the claim
   * won one. Live deliveries and injected ones take this one path, so the
   * lease request, the confirm's nonce and the claim's admission stay here.
   */
  claim(delivery: Leasable, arrival: Arrival): Promise<Exclude<Work, ProbeWork>>;
  claim(delivery: Claimable, arrival: Arrival): Promise<Work>;
  async claim(delivery: Claimable, arrival: Arrival): Promise<Work> {
    const { o } = this;
    const { receivedAt } = arrival;
    // Every kind of work a person waits on is leased: a mention, a DM, a slash command, a click (a probe is not).
    const request = delivery.kind === 'probe' ? undefined : deliveryLeaseRequest(o.lease.leaseMs, delivery, { ordered: this.#ordered });
    const sentAt = o.now();
    const outcome = await this.#claimWithinAck(delivery.claimKeys, receivedAt, request);
    if (outcome.kind === 'duplicate') return { kind: 'duplicate', claim: 'duplicate' };
    const said = { claim: outcome.kind, ...(outcome.kind === 'fail-open' ? { failOpen: outcome.reason } : {}) };
    if (delivery.kind === 'probe') return { kind: 'probe', ...said, eventId: delivery.eventId };
    // Its lease runs from when the claim was sent.
    const lease = this.#leaseFor(delivery, outcome, sentAt);
    const nonce = outcome.kind === 'fail-open' ? outcome.nonce : undefined;
    // A turn alone in its conversation was admitted by its claim: its gate does not look.
    const claimAdmitted = lease !== undefined && outcome.kind === 'claimed' && outcome.admitted === true;
    return {
      kind: 'turn',
      ...said,
      // The edge hints the other copy to look when this lease would lapse (lib/synthetic).
      ...(lease ? { leaseHeader: String(o.lease.leaseMs) } : {}),
      run: ({ gate, logFields, kept }) => {
        if (kept) this.#keptRunning += 1;
        this.#run({
          delivery,
          gate,
          receivedAt,
          claim: outcome.kind,
          retry: arrival.retry ?? { retryNum: undefined, retryReason: undefined },
          logFields,
          fence: new TurnFence(lease),
          nonce,
          ...(kept ? { arrivedAt: kept.arrivedAt, kept: true } : {}),
          ...(claimAdmitted ? { claimAdmitted } : {}),
        });
      },
    };
  }

  /**
   * The store's claim, failed open if it has not answered `ANSWER_MARGIN_MS` before the ack deadline.
   * The turn has not run yet: a turn alone in its conversation is admitted by the claim (`admitted`, its
   * first look made there), and its Turn says so (`claimAdmitted`).
   */
  #claimWithinAck(keys: string[], receivedAt: number, lease: LeaseRequest | undefined): Promise<ClaimOutcome> {
    const { o } = this;
    if (keys.length === 0) return Promise.resolve({ kind: 'claimed' });
    const owner = { instance: o.instance, role: o.role };
    // The store bounds itself; this bound keeps the ack deadline even if it did not. Its nonce is this runner's,
    // so a leased claim given up here (its write may land) can still be confirmed, as one the store gave up on.
    const left = o.ackDeadlineMs - ANSWER_MARGIN_MS - (o.now() - receivedAt);
    const nonce = randomUUID();
    const givenUp = (): ClaimOutcome => ({ kind: 'fail-open', reason: 'receiver ack deadline', ...(lease ? { nonce } : {}) });
    const claimed = withDeadline(o.store.claim(keys, owner, lease, { firstLook: this.#ordered, nonce }), left, givenUp);
    if (o.tracer)
      void claimed.then(
        (c) => o.tracer?.claim({ key: keys[0]!, eventId: lease?.eventId, outcome: c.kind, startedAt: receivedAt }),
        () => {},
      );
    return claimed;
  }

  /** The lease an event's claim won (its lease runs from `sentAt`, under the claim's keys), the runner's to end; undefined for any other outcome. */
  #leaseFor(delivery: Delivery, outcome: ClaimOutcome, sentAt: number): TurnLease | undefined {
    if (!isLeasable(delivery) || outcome.kind !== 'claimed' || outcome.token === undefined) return undefined;
    return this.#lease(delivery, outcome.token, sentAt);
  }

  /**
   * A delivery Slack gave up on, found by the catch-up sweep: claimed like a
   * live one (under the same message key, so a late retry or a second
   * sweeper is a duplicate) and run with nobody waiting for an ack. Unlike a
   * live delivery it does not fail open: nobody waits for it, Slack keeps
   * the message, and a live delivery of it may be running unrecorded (its
   * own claim failed open), so it is left for the next sweep.
   */
  async inject(
    envelope: Record<string, unknown>,
    options: { recovered?: boolean; kept?: { arrivedAt: number }; via?: 'catchup' | 'schedule' | 'answer' } = {},
  ): Promise<ClaimKind> {
    const { o } = this;
    // An event's envelope, or a slash command's or an interaction's body marked with its kind (the edge's inbox, the journal).
    const delivery = storedDelivery(envelope);
    if (!delivery) return 'duplicate';
    const work = await this.claim(delivery, { receivedAt: o.now() });
    if (work.kind === 'duplicate') return 'duplicate';
    if (work.claim === 'fail-open') {
      if (options.recovered) return 'fail-open';
      o.log.warn('catchup.unsure', {
        kind: delivery.kind,
        eventId: workIdOf(delivery),
        reason: work.failOpen,
        detail: 'the store did not answer: left for the next sweep',
      });
      return 'fail-open';
    }
    const via = options.via ?? 'catchup';
    const how = options.recovered ? { recovered: true } : options.kept ? { kept: true } : via === 'catchup' ? { catchup: true } : { via };
    const logFields = { kind: delivery.kind, eventId: workIdOf(delivery), claim: work.claim, ...how };
    // A schedule's slot and a question's answer are logged by their own rooms (schedule.fired, ask.answered).
    if (options.kept) o.log.info('inbox.found', logFields);
    else if (!options.recovered && via === 'catchup') o.log.info('catchup.found', logFields);
    work.run({ gate: AckGate.detached(), logFields, ...(options.kept ? { kept: options.kept } : {}) });
    return work.claim;
  }

  /** The store answered (a look went through): the turns kept for it are claimed and run now. Nothing to do while none is kept. */
  storeAnswered(): Promise<void> {
    return this.#ends.runKept('store answered');
  }

  /** At start: what a stopping copy journaled is claimed and run (lib/runner/turn-ends.ts). */
  runKept(why: 'start' | 'store answered'): Promise<void> {
    return this.#ends.runKept(why);
  }
}

/** A click or a slash command: a person waits on it the moment (a question's timeout, a response_url's 30 minutes). */
function personWaits(t: Turn): boolean {
  return t.delivery.kind === 'interactive' || t.delivery.kind === 'command';
}

function isLeasable(delivery: Delivery): delivery is Leasable {
  return delivery.kind === 'event' || delivery.kind === 'command' || delivery.kind === 'interactive';
}

/** The deliveries a claim takes: what a person waits on, and `npm run verify`'s probe. */
export type Claimable = Leasable | Extract<Delivery, { kind: 'probe' }>;

/** How a delivery arrived, for its claim's ack deadline and its turn. */
export interface Arrival {
  receivedAt: number;
  /** Slack's retry headers (none for an injected delivery). */
  retry?: Turn['retry'];
}

/** How the claim went (a delivery with no key to claim under is `claimed`), and why it failed open when it did (the store did not answer). */
interface ClaimSaid {
  claim: ClaimKind;
  failOpen?: string;
}

/** What `claim` hands back: nothing to run, a probe's outcome, or a turn. */
export type Work = (ClaimSaid & { kind: 'duplicate' }) | ProbeWork | TurnWork;

/** A probe is claimed like an event and answered with its claim's outcome; nothing runs. */
export interface ProbeWork extends ClaimSaid {
  kind: 'probe';
  eventId: string;
}

/** A claimed (or failed-open) turn, run once by whoever claimed it. */
export interface TurnWork extends ClaimSaid {
  kind: 'turn';
  /** LEASE_HEADER's value for the edge when the turn holds a lease (lib/synthetic). */
  leaseHeader?: string;
  /** `gate`: where its ack goes; `kept`: a delivery the edge kept (TurnRunner.keptRunning). */
  run(how: { gate: AckGate; logFields: Record<string, unknown>; kept?: { arrivedAt: number } }): void;
}
