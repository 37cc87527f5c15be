/**
 * A running turn's lease: renewed in the background while the turn runs, a
 * commit point before posting, and the finish after. Once a renewal or the
 * commit fails, the lease is lost for good and the turn must not post.
 */
import type { ClaimStore, LeaseSettings } from '../store/index.js';
import type { Logger } from '../log/index.js';

export class TurnLease {
  #lost = false;
  #finished = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly store: ClaimStore,
    readonly key: string,
    readonly token: number,
    private readonly settings: LeaseSettings,
    private readonly log: Logger,
    /** For a taken-over turn: the state its dead owner left. `posting` means it may have posted. */
    readonly previousState: 'claimed' | 'posting' | undefined = undefined,
  ) {}

  get lost(): boolean {
    return this.#lost;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Renew every `renewMs` until the turn finishes or the lease is lost. */
  start(): void {
    this.#timer = setInterval(() => {
      void this.store.renew(this.key, this.token, this.settings.leaseMs).then((reply) => {
        if (reply !== 'ok' && !this.#finished) this.#lose(`renewal ${reply}`);
      });
    }, this.settings.renewMs);
    this.#timer.unref?.();
  }

  #lose(reason: string): void {
    if (this.#lost) return;
    this.#lost = true;
    this.stop();
    this.log.warn('lease.lost', { key: this.key, token: this.token, reason });
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The commit point: true when this turn may post now (claimed -> posting with its token). */
  async commit(): Promise<boolean> {
    if (this.#lost) return false;
    const reply = await this.store.commit(this.key, this.token, this.settings.leaseMs);
    if (reply !== 'ok') this.#lose(`commit ${reply}`);
    return reply === 'ok';
  }

  /** The turn is over (with the reply's ts, or null when it posted nothing). */
  async finish(replyTs: string | null): Promise<void> {
    this.stop();
    if (this.#finished || this.#lost) return;
    this.#finished = true;
    const reply = await this.store.finish(this.key, this.token, replyTs);
    if (reply !== 'ok') this.log.warn('lease.finish_failed', { key: this.key, token: this.token, reply });
  }
}
