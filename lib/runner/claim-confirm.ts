/**
 * The confirm of a claim that failed open. A claim that timed out may still
 * land: once the store answers, the copy knows. Landed and still ours: the
 * turn runs on under that lease (renewed, fenced, finished in the store).
 * Another copy's: this run stands down before it writes. Never landed: it is
 * claimed now, or runs on as it is. Unasked, a claim that landed late held a
 * lease nobody renewed, and the copy that took it over answered the turn a
 * second time.
 *
 * One confirm a turn, asked until the store answers, within the turn's retry
 * window; the turn's first write waits for one ask of it (`askNow`), and a
 * run that ends before the answer leaves its end to it (`ranOut`).
 */
import type { Claims } from '../store/index.js';
import type { TurnLease } from '../lease/index.js';

/** What the confirm decided: the turn's lease (the claim was this copy's, or claimed now), or another copy's. */
export type ConfirmVerdict = { kind: 'lease'; lease: TurnLease; reclaimed: boolean; ranOut: boolean } | { kind: 'not-ours'; reply: 'held' | 'lost' };

export interface ConfirmOptions {
  store: Pick<Claims, 'confirm'>;
  key: string;
  /** The nonce the claim that timed out carried. */
  nonce: string;
  leaseMs: number;
  /** Asked until then (the turn's retry window: after it nothing could retry the turn anyway). */
  until: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Whether the turn's run is here (a run that ended is not, unless it ran out before the answer). */
  here: () => boolean;
  /** Whether the turn holds a lease already (attached by another path: a takeover of its own turn). */
  leased: () => boolean;
  /** A lease for the claim the store says is this copy's, sent at `sentAt`. */
  leaseAt: (sentAt: number) => TurnLease;
  /** The claim made again (it was absent): a lease, or undefined (held meanwhile, or the store is away). */
  reclaim: () => Promise<TurnLease | undefined>;
  /** What the answer decided: the runner attaches the lease, ends the run under it, or stands the run down. */
  decided: (verdict: ConfirmVerdict) => Promise<void> | void;
}

export class ClaimConfirm {
  /** Resolves when the confirm is over (decided, given up, or past its window). */
  readonly done: Promise<void>;
  #over = false;
  /** One ask (a round trip, and a claim when the first was absent), while it is under way. */
  #asking: Promise<void> | undefined;
  /** A write made between two asks waits for the next: settled with it (at once, when the confirm ends first). */
  #nextAsk: { asked: Promise<void>; start: (asking: Promise<void> | undefined) => void } | undefined;
  /** Cuts the pause between two asks short. */
  #wake: (() => void) | undefined;
  #failing = false;
  #ranOut = false;

  constructor(private readonly o: ConfirmOptions) {
    this.done = this.#run().finally(() => {
      this.#over = true;
      this.#nextAsked(undefined);
    });
  }

  /** Whether the confirm is still asked. */
  get asking(): boolean {
    return !this.#over;
  }

  /**
   * What the turn's first write without a lease waits for: the ask under way,
   * or, between two asks (the store did not answer the last), the next one,
   * asked now. Unasked, a write made in that pause went out unfenced, and a
   * copy whose claim the other copy had made again answered a second time.
   */
  askNow(): Promise<void> | undefined {
    if (this.#asking) return this.#asking;
    if (this.#over) return undefined;
    if (!this.#nextAsk) {
      let start: (asking: Promise<void> | undefined) => void = () => {};
      const asked = new Promise<void>((resolve) => (start = resolve));
      this.#nextAsk = { asked, start };
    }
    this.#wake?.();
    return this.#nextAsk.asked;
  }

  /** The turn failed: no ask after the one under way; resolves when the confirm is over (its answer decides whose lease the failure goes back through). */
  failing(): Promise<void> {
    this.#failing = true;
    this.#wake?.();
    return this.done;
  }

  /** The run ended before the answer: the answer ends the turn (`decided` with `ranOut`), so its lease is not left to lapse. */
  ranOut(): void {
    if (!this.#over) this.#ranOut = true;
  }

  /** Whether an answer is still this confirm's to act on. */
  #open(): boolean {
    return (this.o.here() || this.#ranOut) && !this.o.leased();
  }

  async #run(): Promise<void> {
    const { o } = this;
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        this.#wake = resolve;
        void o.sleep(ms).then(resolve);
      });
    for (let wait = 1000; this.#open() && !this.#failing && o.now() < o.until; wait = Math.min(wait * 2, o.leaseMs)) {
      const asked = this.#ask();
      this.#asking = asked.then(
        () => undefined,
        () => undefined,
      );
      this.#nextAsked(this.#asking);
      let answered: boolean;
      try {
        answered = await asked;
      } finally {
        this.#asking = undefined;
      }
      if (answered || this.#failing) return;
      await pause(wait);
    }
  }

  /** The confirm's next ask has started (`asking`), or the confirm is over (undefined): the writes waiting for it wait for that. */
  #nextAsked(asking: Promise<void> | undefined): void {
    const next = this.#nextAsk;
    this.#nextAsk = undefined;
    next?.start(asking);
  }

  /**
   * One ask: true when it decided the turn (a lease, stood down, or no longer
   * this confirm's to decide), false to ask again later. A claim found absent
   * is claimed now; when that gives no lease (held meanwhile, by the other
   * copy's claim or this one's landing late), the store is asked again at
   * once, so the first write waits for that answer too.
   */
  async #ask(reclaim = true): Promise<boolean> {
    const { o } = this;
    const sentAt = o.now();
    const reply = await o.store.confirm(o.key, o.nonce, o.leaseMs).catch(() => 'unreachable' as const);
    if (!this.#open()) return true;
    if (reply === 'mine') {
      await this.#decide({ kind: 'lease', lease: o.leaseAt(sentAt), reclaimed: false, ranOut: this.#ranOut });
      return true;
    }
    if (reply === 'held' || reply === 'lost') {
      await this.#decide({ kind: 'not-ours', reply });
      return true;
    }
    if (reply === 'absent' && reclaim) {
      // Not there yet, or never: claim it now (a late landing of the first claim then finds it held).
      const lease = await o.reclaim().catch(() => undefined);
      if (!this.#open()) return true;
      if (lease) {
        await this.#decide({ kind: 'lease', lease, reclaimed: true, ranOut: this.#ranOut });
        return true;
      }
      return this.#ask(false);
    }
    return false;
  }

  async #decide(verdict: ConfirmVerdict): Promise<void> {
    this.#ranOut = false;
    await this.o.decided(verdict);
  }
}
