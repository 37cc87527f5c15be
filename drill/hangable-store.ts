/**
 * A store that can be told to stop answering, for the drill's `redis-hang`
 * when no real Redis is at hand (with one, the drill pauses the real
 * redis-server instead). While hung, every operation answers as the Upstash
 * adapter does once its deadline gives up: claims fail open, reads find
 * nothing, writes are lost, lease operations are unreachable.
 */
import type { SharedStore } from '../lib/store/index.js';

const REASON = 'drill: store hung';

type Operations = Omit<SharedStore, 'kind' | 'windows' | 'observed'>;

/** What each operation answers while the store is hung. */
const WHILE_HUNG: { [K in keyof Operations]: (...a: Parameters<Operations[K]>) => Awaited<ReturnType<Operations[K]>> } = {
  claim: () => ({ kind: 'fail-open', reason: REASON }),
  confirm: () => 'unreachable',
  lock: () => undefined,
  unlock: () => undefined,
  note: () => undefined,
  noteNewest: () => undefined,
  tally: () => undefined,
  read: () => undefined,
  readHash: () => undefined,
  push: () => undefined,
  range: () => [],
  ping: () => ({ ok: false, reason: REASON }),
  renew: (leases) => leases.map(() => 'unreachable' as const),
  markStream: () => 'unreachable',
  commit: () => 'unreachable',
  restore: () => 'unreachable',
  finish: () => 'unreachable',
  release: () => 'unreachable',
  deadLetter: () => 'unreachable',
  pending: () => undefined,
  dropGap: () => undefined,
  look: () => undefined,
  listDead: () => undefined,
  replayDead: () => undefined,
  dropDead: () => false,
  keepStep: () => 'unreachable',
  loadSteps: () => undefined,
  enterConversation: () => undefined,
  conversationInterrupted: () => undefined,
};

export function hangable(store: SharedStore): SharedStore & { hung: boolean } {
  const wrapper = {
    kind: store.kind,
    windows: store.windows,
    hung: false,
    observed: () => (wrapper.hung ? { ok: false, reason: REASON, at: Date.now() } : store.observed()),
  } as SharedStore & { hung: boolean };
  for (const name of Object.keys(WHILE_HUNG) as (keyof Operations)[]) {
    const hungAnswer = WHILE_HUNG[name] as (...a: unknown[]) => unknown;
    const operation = (store[name] as (...a: unknown[]) => Promise<unknown>).bind(store);
    (wrapper as unknown as Record<string, unknown>)[name] = async (...a: unknown[]) => (wrapper.hung ? hungAnswer(...a) : operation(...a));
  }
  return wrapper;
}
