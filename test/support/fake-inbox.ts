import { InboxDrainer, InboxStoreError, type InboxStore, type KeptMember } from '../../lib/inbox/index.js';

/** How one read of the lost counts goes wrong: never taken (`before`), or taken and its reply lost (`after`). */
export type LostReadFault = 'before' | 'after' | undefined;

/**
 * The edge's inbox as the drainer sees it (lib/inbox's InboxStore), in memory, for tests of InboxDrainer alone.
 * `holdFirstStats`: the first stats read is held until `release()` and sees the inbox as it was when sent.
 * `lostReads`: how each read of the lost counts goes, by its number from 1 (default: each answers). The lost
 * counts are taken once a receipt, as lib/inbox/store.ts's script takes them.
 */
export function fakeInbox(o: { holdFirstStats?: boolean; lostReads?: (read: number) => LostReadFault } = {}) {
  const members: KeptMember[] = [];
  const lost = { dropped: 0, unopened: 0 };
  const receipts = new Map<string, { dropped: number; unopened: number }>();
  let reads = 0;
  let release: () => void = () => {};
  let held: Promise<void> | undefined = o.holdFirstStats ? new Promise<void>((resolve) => (release = resolve)) : undefined;
  const store: InboxStore = {
    keep: async () => ({ kind: 'kept', size: members.length, expired: 0 }),
    take: async (count) => members.slice(0, count),
    remove: async (member) => {
      const at = members.findIndex((m) => m.member === member);
      if (at >= 0) members.splice(at, 1);
    },
    drop: async (member, unopened) => {
      const at = members.findIndex((m) => m.member === member);
      if (at < 0) return false;
      members.splice(at, 1);
      lost.dropped += 1;
      if (unopened) lost.unopened += 1;
      return true;
    },
    takeLost: async (receipt) => {
      reads += 1;
      const fault = o.lostReads?.(reads);
      if (fault === 'before') throw new InboxStoreError('store answered 500: no result');
      let taken = receipts.get(receipt);
      if (!taken) {
        taken = { ...lost };
        receipts.set(receipt, taken);
        lost.dropped = 0;
        lost.unopened = 0;
      }
      if (fault === 'after') throw new InboxStoreError('the reply was lost (the read ran)');
      return { ...taken };
    },
    stats: async () => {
      const size = members.length;
      if (held) {
        const wait = held;
        held = undefined;
        await wait;
      }
      return { size, oldestAt: members[0]?.arrivedAt };
    },
  };
  return { store, members, lost, release: () => release() };
}

/** A drainer of `store` that can open nothing (each entry is dropped as unopened), telling the owner into `told`. */
export function openingNothing(store: InboxStore, o: { told?: string[]; endOutage?: () => Promise<number | undefined> } = {}): InboxDrainer {
  return new InboxDrainer({
    store,
    open: () => undefined,
    signingSecret: 'secret',
    injectEvent: async () => 'claimed',
    tellOwner: async (text) => void o.told?.push(text),
    markOutage: async () => 'marked',
    endOutage: o.endOutage ?? (async () => undefined),
    log: { info: () => {}, warn: () => {}, error: () => {} },
    now: () => 0,
  });
}
