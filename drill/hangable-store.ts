/**
 * A store that can be told to stop answering, for the drill's `redis-hang`
 * when no real Redis is at hand (with one, the drill pauses the real
 * redis-server instead). While hung, every operation answers as the Upstash
 * adapter does once its deadline gives up: claims fail open, reads find
 * nothing, writes are lost, lease operations are unreachable.
 */
import type { SharedStore } from '../lib/store/index.js';

export function hangable(store: SharedStore): SharedStore & { hung: boolean } {
  const wrapper: SharedStore & { hung: boolean } = {
    kind: store.kind,
    windows: store.windows,
    hung: false,
    claim: async (...a) => (wrapper.hung ? { kind: 'fail-open', reason: 'drill: store hung' } : store.claim(...a)),
    confirm: async (...a) => (wrapper.hung ? 'unreachable' : store.confirm(...a)),
    lock: async (...a) => (wrapper.hung ? undefined : store.lock(...a)),
    unlock: async (...a) => (wrapper.hung ? undefined : store.unlock(...a)),
    note: async (...a) => (wrapper.hung ? undefined : store.note(...a)),
    read: async (...a) => (wrapper.hung ? undefined : store.read(...a)),
    readHash: async (...a) => (wrapper.hung ? undefined : store.readHash(...a)),
    push: async (...a) => (wrapper.hung ? undefined : store.push(...a)),
    range: async (...a) => (wrapper.hung ? [] : store.range(...a)),
    ping: async () => (wrapper.hung ? { ok: false, reason: 'drill: store hung' } : store.ping()),
    observed: () => (wrapper.hung ? { ok: false, reason: 'drill: store hung', at: Date.now() } : store.observed()),
    renew: async (leases, ms) => (wrapper.hung ? leases.map(() => 'unreachable' as const) : store.renew(leases, ms)),
    markStream: async (...a) => (wrapper.hung ? 'unreachable' : store.markStream(...a)),
    commit: async (...a) => (wrapper.hung ? 'unreachable' : store.commit(...a)),
    restore: async (...a) => (wrapper.hung ? 'unreachable' : store.restore(...a)),
    finish: async (...a) => (wrapper.hung ? 'unreachable' : store.finish(...a)),
    release: async (...a) => (wrapper.hung ? 'unreachable' : store.release(...a)),
    deadLetter: async (...a) => (wrapper.hung ? 'unreachable' : store.deadLetter(...a)),
    pending: async () => (wrapper.hung ? undefined : store.pending()),
    dropGap: async (...a) => (wrapper.hung ? undefined : store.dropGap(...a)),
    look: async (...a) => (wrapper.hung ? undefined : store.look(...a)),
    listDead: async (...a) => (wrapper.hung ? undefined : store.listDead(...a)),
    replayDead: async (...a) => (wrapper.hung ? undefined : store.replayDead(...a)),
    dropDead: async (...a) => (wrapper.hung ? false : store.dropDead(...a)),
    keepStep: async (...a) => (wrapper.hung ? false : store.keepStep(...a)),
    loadSteps: async (...a) => (wrapper.hung ? undefined : store.loadSteps(...a)),
  };
  return wrapper;
}
