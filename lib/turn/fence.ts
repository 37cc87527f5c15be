/**
 * A turn's fence: the one object that says whether this copy may still act
 * for a turn, handed to everything that acts. The rate-limited fetch asks it
 * right before each of the turn's Web API requests leaves, the step book
 * right before a step's `fn` runs, and the reply writer records the turn's
 * parts through it; the runner attaches the turn's lease to it, late too (a
 * claim that failed open and was confirmed), and bars it when the turn is
 * another copy's or is cut off. Nothing is called back: each asks the fence.
 *
 *   check(at) -> barred (stood down, cut off)?       refused: LeaseLostError
 *             -> its end recorded?                    refused
 *             -> no lease, a confirm under way?       the first write waits for its answer
 *             -> a lease?                             the lease's own confirm (its token, renewed)
 *             -> none                                 it goes out unfenced (the claim failed open)
 *
 * `signal` is the turn's stop (`ctx.signal`): it aborts when the lease does,
 * when the fence is barred, and when the turn is stopped for another reason
 * (its deadline, an interrupt, the person's Stop), which bars no write.
 */
import { LeaseLostError } from '../errors/index.js';
import type { PartsLedger } from './open-stream.js';

/** What the fence needs of a turn's lease (lib/lease's TurnLease is one). */
export interface FencedLease extends PartsLedger {
  readonly key: string;
  /** The lease's token: a step's result is kept only under it. */
  readonly token?: number;
  readonly signal: AbortSignal;
  readonly checkThreadFirst: boolean;
  readonly previousState: string | undefined;
  readonly attempts: number;
  /** Resolves while this copy holds the turn; throws LeaseLostError when it does not. */
  confirm(at?: string): Promise<void>;
  /** Another copy holds the turn now. */
  readonly lost: boolean;
}

/** The confirm of a claim that failed open (lib/runner/claim-confirm.ts): its answer under way, while one is asked. */
export interface PendingConfirm {
  askNow(): Promise<unknown> | undefined;
}

export class TurnFence<L extends FencedLease = FencedLease> implements PartsLedger {
  #lease: L | undefined;
  #confirm: PendingConfirm | undefined;
  #barred: string | undefined;
  #ended = false;
  /** A write of this turn has gone out without a lease. */
  #unfenced = false;
  readonly #stop = new AbortController();

  constructor(lease?: L) {
    if (lease) this.attach(lease);
  }

  /** The turn's lease as it is now (undefined: its claim failed open and nothing confirmed it yet). */
  get lease(): L | undefined {
    return this.#lease;
  }

  /** The turn's lease from now on (a claim confirmed late, a takeover of this copy's own turn): `signal` follows it. */
  attach(lease: L): void {
    this.#lease = lease;
    const stop = () => this.stop(lease.signal.reason);
    if (lease.signal.aborted) stop();
    else lease.signal.addEventListener('abort', stop, { once: true });
  }

  /** The claim failed open and its confirm is asked: the turn's first write without a lease waits for its answer. */
  confirming(confirm: PendingConfirm): void {
    this.#confirm = confirm;
  }

  /** Aborts when this copy no longer owns the turn, or the turn is stopped: the turn's `ctx.signal`. */
  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** The turn stops (its deadline, an interrupt, the person's Stop): `signal` aborts with `reason`; its writes still leave. */
  stop(reason: unknown): void {
    if (!this.#stop.signal.aborted) this.#stop.abort(reason);
  }

  /** No write of this turn leaves from now on (another copy owns it, or it was cut off past its grace): `signal` aborts. */
  bar(reason: string): void {
    this.#barred ??= reason;
    this.stop(new LeaseLostError(this.#barred));
  }

  /** Why the fence is barred, if it is. */
  get barred(): string | undefined {
    return this.#barred;
  }

  /** The turn's end is recorded: anything written after it is refused, as after the lease's finish. */
  end(): void {
    this.#ended = true;
  }

  /** The token of the turn's lease now (a step's result is kept only under it); undefined: its claim failed open. */
  get token(): number | undefined {
    return this.#lease?.token;
  }

  /** Resolves while this copy may act for the turn (a write, a step's side effect); throws LeaseLostError when it may not. */
  async check(at?: string): Promise<void> {
    if (this.#barred) throw new LeaseLostError(this.#barred);
    if (this.#ended) throw new LeaseLostError(`${at ?? 'write'} after the turn ended`);
    // Without a lease, the first write waits for a confirm under way (one round trip, bounded by the
    // store's fuse and by the turn's deadline): its answer may attach the lease, or bar the fence.
    // Later writes do not wait: while the store is away the turn runs on, unfenced (it failed open).
    const asking = this.#lease || this.#unfenced ? undefined : this.#confirm?.askNow();
    if (asking) await settledOrAborted(asking, this.#stop.signal);
    if (this.#barred) throw new LeaseLostError(this.#barred);
    const lease = this.#lease;
    if (lease) return lease.confirm(at);
    this.#unfenced = true;
  }

  // The reply's parts are the lease's record, whichever lease the turn holds at each write.
  get parts(): readonly string[] {
    return this.#lease?.parts ?? [];
  }
  async recordParts(ts: readonly string[]): Promise<void> {
    await this.#lease?.recordParts(ts);
  }
  confirmed(chars: number): void {
    this.#lease?.confirmed(chars);
  }
}

/** Resolves once `work` settles or `signal` aborts, whichever is first; never rejects. */
function settledOrAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    work.then(done, done);
  });
}
