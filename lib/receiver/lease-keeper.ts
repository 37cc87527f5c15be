/**
 * Keeps this copy's leases alive: one timer and one store request per
 * `renewMs` for every turn it holds, running or waiting, instead of a timer
 * and a request per turn.
 *
 * A lease is given up only when the store says another copy holds it, or
 * when renewals have failed for longer than it could still be alive: it is
 * held until (send time of the last acknowledged claim or renewal) + leaseMs.
 * With lease 10 s and renewals every 3 s, two failed renewals in a row are
 * survived (README, "Leases").
 */
import type { LeaseSettings, Leases } from '../store/index.js';
import type { Logger } from '../log/index.js';

interface Held {
  token: number;
  /** Characters of the lease's streamed reply Slack has confirmed, recorded with the next renewal. */
  confirmed?: number;
  /** Epoch ms (this clock) until which no other copy can have taken it. */
  heldUntil: number;
  lose: (reason: string) => void;
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
  ) {}

  /** Leases held now. */
  get size(): number {
    return this.#held.size;
  }

  add(key: string, token: number, heldUntil: number, lose: (reason: string) => void): void {
    this.#held.set(key, { token, heldUntil, lose });
  }

  remove(key: string): void {
    this.#held.delete(key);
  }

  /** Until when the lease is provably ours; 0 when it is not held here. */
  heldUntil(key: string): number {
    return this.#held.get(key)?.heldUntil ?? 0;
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

  /** One batched renewal of every lease held (skipped while the last one is still out). */
  async renewNow(): Promise<void> {
    if (this.#renewing || this.#held.size === 0) return;
    this.#renewing = true;
    try {
      const batch = [...this.#held].map(([key, held]) => ({ key, token: held.token, held, ...(held.confirmed !== undefined ? { confirmed: held.confirmed } : {}) }));
      const sentAt = this.now();
      const replies = await this.store.renew(batch, this.settings.leaseMs);
      const answeredAt = this.now();
      batch.forEach(({ key, held }, i) => {
        if (this.#held.get(key) !== held) return;
        const reply = replies[i] ?? 'unreachable';
        if (reply === 'ok') held.heldUntil = Math.max(held.heldUntil, sentAt + this.settings.leaseMs);
        else if (reply === 'lost') this.#lose(key, held, 'renewal: another copy holds the turn');
        else if (answeredAt >= held.heldUntil) this.#lose(key, held, 'renewals failed for longer than the lease');
      });
      if (replies.some((r) => r === 'unreachable')) this.log.warn('lease.renew_failed', { leases: batch.length });
    } finally {
      this.#renewing = false;
    }
  }

  #lose(key: string, held: Held, reason: string): void {
    this.#held.delete(key);
    held.lose(reason);
  }
}
