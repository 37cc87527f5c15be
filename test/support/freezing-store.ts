/**
 * A store whose calls the test holds, for faults a real Redis cannot be told
 * to make one copy at a time: a copy frozen as under SIGSTOP (its calls wait,
 * unsent, until `thaw`), a command that landed and whose answer is late or
 * lost. Every other call goes to the store as it is.
 */
import type { SharedStore } from '../../lib/store/index.js';

/** The store's methods that answer through a promise (the ones a freeze can hold). */
export type StoreCall = {
  [K in keyof SharedStore]-?: SharedStore[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof SharedStore];

export interface FreezingOptions {
  /** The calls a freeze holds (what keeps a copy alive in the store: renewals, looks). The others are never held. */
  calls: readonly StoreCall[];
  /** Sees each such call before it is sent; may `freeze()` the store, this call first. */
  onCall?: (name: StoreCall, args: readonly unknown[], store: FreezingStore) => void;
  /** After its answer came back (the command landed), this call is held until `thaw`: an answer that is late. */
  holdAnswer?: (name: StoreCall, args: readonly unknown[]) => boolean;
  /** What the caller is told instead of `reply` (undefined: the answer was lost, as the store's deadline loses it). */
  answer?: (name: StoreCall, args: readonly unknown[], reply: unknown) => unknown;
}

export interface FreezingStore {
  readonly store: SharedStore;
  /** While frozen, every call in `calls` waits, unsent, until `thaw`. */
  readonly frozen: boolean;
  freeze(): void;
  /** Waits until `thaw`, as a frozen call does (a turn of the frozen copy that is running). */
  hold(): Promise<void>;
  /** Calls (and turns) held now. */
  readonly held: number;
  /** Unfreezes, and lets every held call go on. */
  thaw(): void;
}

export function freezingStore(inner: SharedStore, o: FreezingOptions): FreezingStore {
  const held: Array<() => void> = [];
  let frozen = false;
  const calls = new Set<PropertyKey>(o.calls);
  const self: FreezingStore = {
    store: new Proxy(inner, {
      get: (target, name) => {
        const value = Reflect.get(target, name, target) as unknown;
        if (typeof value !== 'function') return value;
        const method = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
        if (!calls.has(name)) return method;
        const call = name as StoreCall;
        return async (...args: unknown[]) => {
          o.onCall?.(call, args, self);
          if (frozen) await self.hold();
          const reply = await method(...args);
          if (o.holdAnswer?.(call, args)) await self.hold();
          return o.answer ? o.answer(call, args, reply) : reply;
        };
      },
    }),
    get frozen() {
      return frozen;
    },
    freeze: () => {
      frozen = true;
    },
    hold: () => new Promise<void>((resolve) => held.push(resolve)),
    get held() {
      return held.length;
    },
    thaw: () => {
      frozen = false;
      for (const resolve of held.splice(0)) resolve();
    },
  };
  return self;
}
