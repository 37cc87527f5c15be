/**
 * A drain asked for while another runs reads what was kept before it was asked.
 * The bug this catches: the second call joined the running drain, whose read came
 * first, so a delivery kept in between (the peer's return, a look) waited for the
 * next hourly look, an hour late.
 */
import { describe, expect, it } from 'vitest';
import { fakeInbox, openingNothing } from '../support/fake-inbox.js';

describe('InboxDrainer.drain', () => {
  it('a drain asked for while one runs reads the inbox after it, and finds what was kept meanwhile', async () => {
    const inbox = fakeInbox({ holdFirstStats: true });
    // Nothing here can open it: the entry is dropped, which is enough to see it was read.
    const drainer = openingNothing(inbox.store);
    const first = drainer.drain('start');
    inbox.members.push({ member: 'kept-meanwhile', arrivedAt: 1 });
    const second = drainer.drain('peer back');
    inbox.release();
    expect(await first).toMatchObject({ dropped: 0 });
    expect(await second).toMatchObject({ dropped: 1 });
    expect(inbox.members).toEqual([]);
  });
});
