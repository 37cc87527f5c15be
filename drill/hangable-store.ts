/**
 * A store that can be told to stop answering, for the drill's `redis-hang`
 * when no real Redis is at hand (with one, the drill pauses the real
 * redis-server instead). While hung, every operation answers as the Upstash
 * adapter does once its deadline gives up: claims fail open, reads find
 * nothing, writes are lost.
 */
import type { ClaimStore } from '../lib/store/index.js';

export function hangable(store: ClaimStore): ClaimStore & { hung: boolean } {
  const wrapper: ClaimStore & { hung: boolean } = {
    kind: store.kind,
    hung: false,
    claim: async (...a) => (wrapper.hung ? { kind: 'fail-open', reason: 'drill: store hung' } : store.claim(...a)),
    note: async (...a) => (wrapper.hung ? undefined : store.note(...a)),
    read: async (...a) => (wrapper.hung ? undefined : store.read(...a)),
    write: async (...a) => (wrapper.hung ? false : store.write(...a)),
    push: async (...a) => (wrapper.hung ? undefined : store.push(...a)),
    range: async (...a) => (wrapper.hung ? [] : store.range(...a)),
    ping: async () => (wrapper.hung ? { ok: false, reason: 'drill: store hung' } : store.ping()),
    renew: async (...a) => (wrapper.hung ? 'unreachable' : store.renew(...a)),
    commit: async (...a) => (wrapper.hung ? 'unreachable' : store.commit(...a)),
    finish: async (...a) => (wrapper.hung ? 'unreachable' : store.finish(...a)),
    takeOver: async (...a) => (wrapper.hung ? [] : store.takeOver(...a)),
  };
  return wrapper;
}
