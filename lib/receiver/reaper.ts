/**
 * The reaper: every `reaperMs`, take over the turns whose owner's lease
 * lapsed (the owner died or froze mid-turn) and run them here.
 */
import type { ClaimOwner, ClaimStore, LeaseSettings, Takeover } from '../store/index.js';
import type { Logger } from '../log/index.js';

export class Reaper {
  #timer: ReturnType<typeof setInterval> | undefined;
  #running = false;

  constructor(
    private readonly store: ClaimStore,
    private readonly owner: ClaimOwner,
    private readonly settings: LeaseSettings,
    private readonly resume: (takeover: Takeover) => void,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.sweep(), this.settings.reaperMs);
    this.#timer.unref?.();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One pass; overlapping passes are skipped. Resolves with the turns taken over. */
  async sweep(): Promise<Takeover[]> {
    if (this.#running) return [];
    this.#running = true;
    try {
      const taken = await this.store.takeOver(this.owner, this.settings.leaseMs, 10);
      for (const takeover of taken) this.resume(takeover);
      return taken;
    } catch (error) {
      this.log.error('reaper.failed', { error });
      return [];
    } finally {
      this.#running = false;
    }
  }
}
