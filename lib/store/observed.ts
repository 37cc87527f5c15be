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
