/**
 * What the store's own traffic says about it: the outcome of the last
 * operation. The health route reads this instead of pinging, so watching a
 * copy's health costs no store command.
 */
import type { StoreHealth } from './roles.js';

export class Observed {
  #last: StoreHealth & { at: number | null } = { ok: true, at: null };

  constructor(private readonly now: () => number) {}

  ok(): void {
    this.#last = { ok: true, at: this.now() };
  }

  failed(reason: string): void {
    this.#last = { ok: false, reason, at: this.now() };
  }

  get(): StoreHealth & { at: number | null } {
    return this.#last;
  }
}

/** Windows learnt from claim replies, with a way to publish ours. */
export class WindowBook {
  readonly #known = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly send: (field: string, reopenAt: number) => void,
  ) {}

  learn(windows: ReadonlyMap<string, number>): void {
    for (const [field, at] of windows) if (at > (this.#known.get(field) ?? 0)) this.#known.set(field, at);
  }

  known(field: string): number | undefined {
    const at = this.#known.get(field);
    if (at === undefined) return undefined;
    if (at <= this.now()) {
      this.#known.delete(field);
      return undefined;
    }
    return at;
  }

  publish(field: string, reopenAt: number): void {
    this.#known.set(field, Math.max(reopenAt, this.#known.get(field) ?? 0));
    this.send(field, reopenAt);
  }
}
