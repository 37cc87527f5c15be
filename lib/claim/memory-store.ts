/**
 * The in-process store, for one copy running alone. Same outcomes and the same
 * guarantee as Redis: a key is claimed once, because each claim checks and
 * sets every key in one synchronous step.
 */
import { CLAIMED, DUPLICATE, combineOutcomes, type ClaimOutcome } from './outcome.js';
import { encodeClaim, type ClaimOwner } from './record.js';
import { CLAIM_TTL_SECONDS, type ClaimStore, type StoreHealth } from './store.js';

interface Entry {
  value: string;
  expiresAt: number;
}

export interface MemoryStoreOptions {
  /** @default Date.now */
  now?: () => number;
  /** @default 24 h */
  ttlSeconds?: number;
  /** Drop expired entries every this many writes. @default 1000 */
  sweepEvery?: number;
}

export class MemoryClaimStore implements ClaimStore {
  readonly kind = 'memory' as const;
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #sweepEvery: number;
  #writes = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#ttlMs = (options.ttlSeconds ?? CLAIM_TTL_SECONDS) * 1000;
    this.#sweepEvery = options.sweepEvery ?? 1000;
  }

  #live(key: string, now: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #set(key: string, value: string, ttlMs: number, now: number): void {
    this.#entries.set(key, { value, expiresAt: now + ttlMs });
    if (++this.#writes % this.#sweepEvery === 0) {
      for (const [k, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(k);
    }
  }

  async claim(keys: readonly string[], owner: ClaimOwner): Promise<ClaimOutcome> {
    const now = this.#now();
    const value = encodeClaim(owner, now, crypto.randomUUID());
    const outcomes = keys.map((key) => {
      if (this.#live(key, now)) return DUPLICATE;
      this.#set(key, value, this.#ttlMs, now);
      return CLAIMED;
    });
    return combineOutcomes(outcomes);
  }

  async note(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.#set(key, value, ttlSeconds * 1000, this.#now());
  }

  async read(key: string): Promise<string | null> {
    return this.#live(key, this.#now())?.value ?? null;
  }

  async write(key: string, value: string, ttlMs: number): Promise<boolean> {
    this.#set(key, value, ttlMs, this.#now());
    return true;
  }

  async ping(): Promise<StoreHealth> {
    return { ok: true };
  }

  /** Number of live keys, for tests and the drill. */
  get size(): number {
    return this.#entries.size;
  }
}
