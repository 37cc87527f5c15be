/**
 * The reaper: looks at the store for turns whose owner's lease lapsed (the
 * owner died or froze mid-turn) or whose retry is due, and runs them here.
 *
 * It does not poll on a short fixed period: each look (one script, which
 * also writes this copy's heartbeat) says when the next lease falls due, and
 * the next look is then, or after `reaperMs` when nothing is due. It is woken
 * early when this copy hands a turn back for a retry, when the edge says it
 * failed the hub over, and when the peer stops answering its health route.
 *
 * A look that fails (the store unreachable) is followed by another after
 * FIRST_RETRY_LOOK_MS, doubling while they keep failing, at most `reaperMs`:
 * a turn abandoned during an outage is found soon after the store is back.
 *
 * A look also dead-letters a lapsed turn whose owners kept dying (its runs or
 * its retry window spent, by `retry`): this copy reports it through `deadLetter`
 * and says so with its next look (soon after); until a look says so, any
 * look reports it again a lease later, so a look whose answer was lost
 * cannot leave a dead letter unannounced (at worst it is told twice).
 *
 * Cost when idle: one command per `reaperMs` (default 120 s: 720 a day).
 */
import type { Logger } from '../log/index.js';
import type { ClaimOwner, Leases, LeaseSettings, Look, RetryPolicy, Takeover } from '../store/index.js';
import type { DeadTurn } from './dead-turn.js';

export interface ReaperOptions {
  store: Pick<Leases, 'look'>;
  owner: ClaimOwner;
  settings: Pick<LeaseSettings, 'leaseMs' | 'reaperMs'>;
  /** How many runs a turn gets: a lapsed lease whose owner died counts one, and past the policy it is dead-lettered. */
  retry: RetryPolicy;
  /** Keys of turns running here without their lease (claims that failed open): never taken over by this copy's own look. */
  unleased?: () => readonly string[];
  /** A turn this copy's look dead-lettered (its owners kept dying): told once, here alone. */
  deadLetter?: (dead: DeadTurn) => void;
  /** Run a taken turn; `sentAt`: when the look that took it was sent (its lease runs from then). */
  resume: (takeover: Takeover, sentAt: number) => void;
  /** How many more turns this copy can take now. */
  capacity: () => number;
  /** This copy's heartbeat record for the status page, written with each look. */
  heartbeat: () => string;
  /** Told what each look found (the catch-up sweep decides from it). */
  look?: (look: Look) => void;
  log: Logger;
  /** @default Date.now */
  now?: () => number;
  /** A factor in [0.9, 1.1] on the idle gap, so copies started together do not look together. @default random */
  jitter?: () => number;
}

/** The shortest gap between two looks: a lease that is due but could not be taken is not polled in a loop. */
export const MIN_LOOK_GAP_MS = 250;
/** A lease is looked at this long after it falls due, so its owner's last renewal has had its chance. */
const DUE_MARGIN_MS = 50;
/** After a failed look, the next is this soon; each failure in a row doubles it, up to `reaperMs`. */
export const FIRST_RETRY_LOOK_MS = 1000;

export class Reaper {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #nextAt = Infinity;
  #running = false;
  #stopped = true;
  #looks = 0;
  /** The last look left due turns behind for want of capacity. */
  #starved = false;
  /** A look was asked for while one was running: look again when it ends. */
  #again = false;
  /** Looks that failed in a row. */
  #failures = 0;
  /** Dead letters reported and told to the owner, for the next look to say so (until then every look reports them). */
  #told: string[] = [];
  readonly #now: () => number;
  readonly #jitter: () => number;

  constructor(private readonly o: ReaperOptions) {
    this.#now = o.now ?? Date.now;
    this.#jitter = o.jitter ?? (() => 0.9 + Math.random() * 0.2);
  }

  /** Looks made so far (for the cost bench and tests). */
  get looks(): number {
    return this.#looks;
  }

  /** When the next look is planned (epoch ms), Infinity when none. */
  get nextAt(): number {
    return this.#nextAt;
  }

  start(): void {
    this.#stopped = false;
    this.lookIn(0);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#nextAt = Infinity;
  }

  /** Look no later than `ms` from now. */
  lookIn(ms: number): void {
    if (this.#stopped) return;
    const at = this.#now() + Math.max(0, ms);
    if (at >= this.#nextAt) return;
    clearTimeout(this.#timer);
    this.#nextAt = at;
    this.#timer = setTimeout(() => void this.look(), Math.max(0, ms));
    this.#timer.unref?.();
  }

  /** A slot came free: look now if the last look had to leave due turns behind. */
  slotFree(): void {
    if (this.#starved) this.lookIn(0);
  }

  /** One look; overlapping looks are skipped. Resolves with the turns taken over. */
  async look(): Promise<Takeover[]> {
    if (this.#running) {
      // The timer that called this has fired, so nothing is planned now: without this, the running look's
      // own plan would be measured against this stale time, dropped, and the reaper would never look again.
      this.#nextAt = Infinity;
      this.#again = true;
      return [];
    }
    this.#running = true;
    this.#again = false;
    this.#nextAt = Infinity;
    clearTimeout(this.#timer);
    let next = this.o.settings.reaperMs * this.#jitter();
    try {
      this.#looks++;
      const sentAt = this.#now();
      const told = this.#told;
      const options = { policy: this.o.retry, ...(this.o.unleased ? { running: this.o.unleased() } : {}), ...(told.length > 0 ? { told } : {}) };
      const look = await this.o.store.look(this.o.owner, this.o.settings.leaseMs, Math.max(0, this.o.capacity()), this.o.heartbeat(), options);
      if (!look) {
        next = this.#afterFailure();
        return [];
      }
      this.#failures = 0;
      this.#told = this.#told.filter((key) => !told.includes(key));
      for (const takeover of look.taken) this.o.resume(takeover, sentAt);
      for (const dead of look.dead) {
        this.o.deadLetter?.({ key: dead.key, eventId: dead.eventId, channel: dead.channel ?? undefined, reason: dead.reason, attempts: dead.attempts });
        if (!this.#told.includes(dead.key)) this.#told.push(dead.key);
      }
      // Told: the next look says so soon, before another copy's look reports them again (a lease from now).
      if (look.dead.length > 0) next = Math.min(next, MIN_LOOK_GAP_MS);
      if (look.reindexed > 0) this.o.log.warn('lease.index_rebuilt', { leases: look.reindexed });
      this.#starved = look.nextDueMs === 0 && this.o.capacity() === 0;
      this.o.look?.(look);
      if (look.nextDueMs !== null) next = Math.min(next, Math.max(MIN_LOOK_GAP_MS, look.nextDueMs + DUE_MARGIN_MS));
      return look.taken;
    } catch (error) {
      this.o.log.error('reaper.failed', { error });
      next = this.#afterFailure();
      return [];
    } finally {
      this.#running = false;
      this.lookIn(this.#again ? Math.min(next, MIN_LOOK_GAP_MS) : next);
    }
  }

  /** The gap before the look after a failed one: 1 s, 2 s, 4 s, ... up to reaperMs, jittered. */
  #afterFailure(): number {
    const backoff = Math.min(this.o.settings.reaperMs, FIRST_RETRY_LOOK_MS * 2 ** this.#failures);
    this.#failures++;
    return backoff * this.#jitter();
  }
}
