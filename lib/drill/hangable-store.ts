/**
 * A store that can be told to stop answering, for the drill's `redis-hang`
 * when no real Redis is at hand. While hung, every call waits until the
 * caller's own deadline gives up on it, like a Redis that keeps its sockets
 * open and answers nothing.
 */
import type { ClaimStore } from '../claim/index.js';

export function hangable(store: ClaimStore): ClaimStore & { hung: boolean } {
  let release: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const wrapper = {
    kind: store.kind,
    get hung() {
      return gate !== released;
    },
    set hung(value: boolean) {
      if (value && gate === released) gate = new Promise<void>((r) => (release = r));
      if (!value) {
        release();
        gate = released;
      }
    },
    claim: async (...args: Parameters<ClaimStore['claim']>) => {
      if (gate !== released) return { kind: 'fail-open' as const, reason: 'drill: store hung' };
      return store.claim(...args);
    },
    note: async (...args: Parameters<ClaimStore['note']>) => (gate === released ? store.note(...args) : undefined),
    read: async (...args: Parameters<ClaimStore['read']>) => (gate === released ? store.read(...args) : undefined),
    write: async (...args: Parameters<ClaimStore['write']>) => (gate === released ? store.write(...args) : false),
    ping: async () => (gate === released ? store.ping() : { ok: false, reason: 'drill: store hung' }),
    renew: async (...args: Parameters<ClaimStore['renew']>) => (gate === released ? store.renew(...args) : ('unreachable' as const)),
    commit: async (...args: Parameters<ClaimStore['commit']>) => (gate === released ? store.commit(...args) : ('unreachable' as const)),
    finish: async (...args: Parameters<ClaimStore['finish']>) => (gate === released ? store.finish(...args) : ('unreachable' as const)),
    push: async (...args: Parameters<ClaimStore['push']>) => (gate === released ? store.push(...args) : undefined),
    range: async (...args: Parameters<ClaimStore['range']>) => (gate === released ? store.range(...args) : []),
    takeOver: async (...args: Parameters<ClaimStore['takeOver']>) => (gate === released ? store.takeOver(...args) : []),
  };
  const released = gate;
  return wrapper;
}
