/**
 * Keeps this copy's leases alive: one timer and one store request per
 * `renewMs` for every turn it holds, running or waiting, instead of a timer
 * and a request per turn.
 *
 * A lease is given up only when the store says another copy holds it, or
 * when renewals have failed for longer than it could still be alive: it is
 * held until (send time of the last acknowledged claim or renewal) + leaseMs.
 * With lease 10 s and renewals every 3 s, two failed renewals in a row are
 * survived (docs/takeover.md).
 *
 * A renewal that finds no record at all (`missing`: the store was flushed,
 * or Upstash evicted the key from a full database) is not "held by another":
 * the lease's `restore` hook writes the claim again under the same token.
 * While that cannot be done because the store does not answer, the lease is
 * kept (the turn runs on), past its heldUntil: no copy can take over a record
 * that does not exist, and every write of the turn that is not provably held
 * asks the store first, which then says `missing` again and restores it.
 * The alternative, handing the turn back for a retry, needs the same store
 * and a record to hand back; giving it up would lose the mention for good.
 *
 * Only a copy that still held the lease when it asked may write it again at
 * once. A copy whose lease had lapsed on its own clock first (a frozen
 * process, a renewal answered late) may have lost the turn to another copy
 * before the store forgot both: that holder is still running it and renews
 * within `renewMs`, so the lapsed copy waits two renewals before it writes
 * the claim again. The live holder's restore lands first and the lapsed copy
 * is told `lost` (it stands down); when nobody took the turn over, the
 * lapsed copy writes it again and runs it, late, and nothing is lost.
 */
import type { EndReply, LeaseSettings, Leases } from '../store/index.js';
import type { Logger } from '../log/index.js';
import { realSleep, type Sleep } from '../time/index.js';

interface Held {
  token: number;
  /** Characters of the lease's streamed reply Slack has confirmed, recorded with the next renewal. */
  confirmed?: number;
  /** Epoch ms (this clock) until which no other copy can have taken it. */
  heldUntil: number;
  lose: (reason: string) => void;
  /** Write the lease's claim again when the store forgot it; none: the lease is lost then. */
  restore: (() => Promise<EndReply>) | undefined;
  /** The store said it has no record of this lease, and no restore has landed since. */
  missing: boolean;
  /** A restore under way, shared by every caller. */
  restoring: Promise<EndReply> | undefined;
  /** Past this (epoch ms) the lease is not renewed: its turn is past its deadline, and lapses unless it ends first. */
  renewUntil?: number;
}

export class LeaseKeeper {
  readonly #held = new Map<string, Held>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #renewing = false;

  constructor(
    private readonly store: Pick<Leases, 'renew'>,
    private readonly settings: Pick<LeaseSettings, 'leaseMs' | 'renewMs'>,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = realSleep,
  ) {}

  /** Leases held now. */
  get size(): number {
    return this.#held.size;
  }

  add(key: string, token: number, heldUntil: number, lose: (reason: string) => void, restore?: () => Promise<EndReply>): void {
    this.#held.set(key, { token, heldUntil, lose, restore, missing: false, restoring: undefined });
  }

  remove(key: string): void {
    this.#held.delete(key);
  }

  /** Until when the lease is provably ours; 0 when it is not held here. */
  heldUntil(key: string): number {
    return this.#held.get(key)?.heldUntil ?? 0;
  }

  /** Renew this lease no longer than `at`: its turn is past its deadline (a bot that never returns is not kept alive forever). */
  renewUntil(key: string, at: number): void {
    const held = this.#held.get(key);
    if (held) held.renewUntil = Math.min(held.renewUntil ?? Infinity, at);
  }

  /** Slack confirmed this much of the lease's streamed reply: recorded with the next renewal, at no extra cost. */
  progress(key: string, confirmed: number): void {
    const held = this.#held.get(key);
    if (held) held.confirmed = confirmed;
  }

  /** A commit or other acknowledged write re-anchored the lease. */
  extend(key: string, heldUntil: number): void {
    const held = this.#held.get(key);
    if (held && heldUntil > held.heldUntil) held.heldUntil = heldUntil;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.renewNow(), this.settings.renewMs);
    this.#timer.unref?.();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Renew at once (a taken-over turn just started here): the renewal tells the
   * store this copy took the turn, and from then on its lapse counts as a death
   * (LOOK_SCRIPT's `unacked`). One more command per takeover, none on a first run.
   */
  renewSoon(): void {
    if (this.#renewing) this.#again = true;
    else void this.renewNow();
  }

  #again = false;

  /** One batched renewal of every lease held (skipped while the last one is still out). */
  async renewNow(): Promise<void> {
    if (this.#renewing || this.#held.size === 0) return;
    this.#renewing = true;
    try {
      const now = this.now();
      const batch = [...this.#held]
        .filter(([, held]) => held.renewUntil === undefined || now < held.renewUntil)
        .map(([key, held]) => ({
          key,
          token: held.token,
          held,
          ...(held.confirmed !== undefined ? { confirmed: held.confirmed } : {}),
        }));
      if (batch.length === 0) return;
      const sentAt = this.now();
      const replies = await this.store.renew(batch, this.settings.leaseMs);
      const answeredAt = this.now();
      const restores: Promise<unknown>[] = [];
      batch.forEach(({ key, held }, i) => {
        if (this.#held.get(key) !== held) return;
        const reply = replies[i] ?? 'unreachable';
        if (reply === 'ok') held.heldUntil = Math.max(held.heldUntil, sentAt + this.settings.leaseMs);
        else if (reply === 'lost') this.#lose(key, held, 'renewal: another copy holds the turn');
        // A lapsed lease's restore waits two renewals: not awaited here, so the other leases' next renewal is not held up.
        else if (reply === 'missing') {
          const lapsed = this.#lapsed(held, sentAt);
          const restoring = this.restore(key, sentAt);
          if (!lapsed) restores.push(restoring);
        } else if (!held.missing && answeredAt >= held.heldUntil) this.#lose(key, held, 'renewals failed for longer than the lease');
      });
      if (replies.some((r) => r === 'unreachable')) this.log.warn('lease.renew_failed', { leases: batch.length });
      await Promise.all(restores);
    } finally {
      this.#renewing = false;
      if (this.#again) {
        this.#again = false;
        void this.renewNow();
      }
    }
  }

  /**
   * The store has no record of this lease: write it again (one command, only
   * then). `ok` re-anchors the lease from when the restore was sent; `lost`
   * gives it up (another record is there now); `unreachable` keeps it, marked
   * missing, for the next renewal to try again. A lease without a hook is lost.
   * `askedAt`: when the request that found the record missing was sent; a
   * lease that had lapsed by then is written again only after two renewals
   * (the module's comment says why).
   */
  restore(key: string, askedAt = this.now()): Promise<EndReply> {
    const held = this.#held.get(key);
    if (!held) return Promise.resolve('lost');
    if (!held.restore) {
      this.#lose(key, held, 'the store forgot the turn, and it cannot be written again');
      return Promise.resolve('lost');
    }
    const waitMs = this.#lapsed(held, askedAt) ? 2 * this.settings.renewMs : 0;
    held.missing = true;
    held.restoring ??= this.#restore(key, held, held.restore, waitMs).finally(() => {
      held.restoring = undefined;
    });
    return held.restoring;
  }

  /** Lapsed on this copy's clock before the store was asked, and not seen missing while still held. */
  #lapsed(held: Held, askedAt: number): boolean {
    return !held.missing && askedAt >= held.heldUntil;
  }

  async #restore(key: string, held: Held, write: () => Promise<EndReply>, waitMs: number): Promise<EndReply> {
    if (waitMs > 0) {
      this.log.warn('lease.restore_deferred', { key, token: held.token, waitMs });
      await this.sleep(waitMs);
      if (this.#held.get(key) !== held) return 'lost';
    }
    const sentAt = this.now();
    // A hook that throws (even before it returns a promise) is a restore that could not be made, never an unhandled rejection.
    const reply = await Promise.resolve()
      .then(write)
      .catch((): EndReply => 'unreachable');
    if (this.#held.get(key) !== held) return reply;
    if (reply === 'ok') {
      held.missing = false;
      held.heldUntil = Math.max(held.heldUntil, sentAt + this.settings.leaseMs);
      this.log.warn('lease.restored', { key, token: held.token });
    } else if (reply === 'lost') this.#lose(key, held, 'restore: another copy holds the turn');
    else this.log.warn('lease.restore_failed', { key, token: held.token });
    return reply;
  }

  #lose(key: string, held: Held, reason: string): void {
    this.#held.delete(key);
    held.lose(reason);
  }
}
