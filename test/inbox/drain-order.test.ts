/**
 * A drain asked for while another runs reads what was kept before it was asked.
 * The bug this catches: the second call joined the running drain, whose read came
 * first, so a delivery kept in between (the peer's return, a look) waited for the
 * next hourly look, an hour late.
 */
import { describe, expect, it } from 'vitest';
import { InboxDrainer, type InboxStore, type KeptMember } from '../../lib/inbox/index.js';

function fakeInbox() {
  const members: KeptMember[] = [];
  let release: () => void = () => {};
  let held: Promise<void> | undefined = new Promise<void>((resolve) => (release = resolve));
  const store: InboxStore = {
    keep: async () => ({ kind: 'kept', size: members.length, expired: 0 }),
    take: async (count) => members.slice(0, count),
    remove: async (member) => {
      const at = members.findIndex((m) => m.member === member);
      if (at >= 0) members.splice(at, 1);
    },
    drop: async (member) => {
      const at = members.findIndex((m) => m.member === member);
      if (at >= 0) members.splice(at, 1);
      return at >= 0;
    },
    takeLost: async () => ({ dropped: 0, unopened: 0 }),
    // The first read is held until the test lets it go, and sees the inbox as it was when it was sent.
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
  return { store, members, release: () => release() };
}

describe('InboxDrainer.drain', () => {
  it('a drain asked for while one runs reads the inbox after it, and finds what was kept meanwhile', async () => {
    const inbox = fakeInbox();
    const drainer = new InboxDrainer({
      store: inbox.store,
      // Nothing here can open it: the entry is dropped, which is enough to see it was read.
      open: () => undefined,
      signingSecret: 'secret',
      injectEvent: async () => 'claimed',
      tellOwner: async () => {},
      markOutage: async () => 'marked',
      endOutage: async () => undefined,
      log: { info: () => {}, warn: () => {}, error: () => {} },
      now: () => 0,
    });
    const first = drainer.drain('start');
    inbox.members.push({ member: 'kept-meanwhile', arrivedAt: 1 });
    const second = drainer.drain('peer back');
    inbox.release();
    expect(await first).toMatchObject({ dropped: 0 });
    expect(await second).toMatchObject({ dropped: 1 });
    expect(inbox.members).toEqual([]);
  });
});
