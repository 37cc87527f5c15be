/**
 * The owner's note at an outage's end says what became of the kept deliveries, even when the store stumbles
 * as it is asked. The bug this catches: the lost counts read as none when the store did not answer that one
 * read, and the owner was told "All 2 deliveries the edge kept are taken up" of two that no copy could open
 * (CI's drill saw it once, in both-down-edge-key).
 */
import { describe, expect, it } from 'vitest';
import { InboxStoreError, outageEndText, outageEndUnreadText } from '../../lib/inbox/index.js';
import { fakeInbox, openingNothing } from '../support/fake-inbox.js';

/** An outage of two deliveries sealed with a key no copy holds, ended by this drain. */
async function drainTwoUnopened(takeLost: 'fails once' | 'never answers') {
  let fails = 0;
  const inbox = fakeInbox({
    takeLost: async () => {
      fails += 1;
      if (takeLost === 'never answers' || fails === 1) throw new InboxStoreError('store answered 500: no result');
      const taken = { ...inbox.lost };
      inbox.lost.dropped = 0;
      inbox.lost.unopened = 0;
      return taken;
    },
  });
  inbox.members.push({ member: 'sealed.other-key.1', arrivedAt: 1 }, { member: 'sealed.other-key.2', arrivedAt: 2 });
  const told: string[] = [];
  await openingNothing(inbox.store, { told, endOutage: async () => 2 }).drain('start');
  return told;
}

describe("the outage's end note", () => {
  it('counts what could not be opened when the lost counts answer on a second read', async () => {
    expect(await drainTwoUnopened('fails once')).toEqual([outageEndText(2, 2, 2)]);
  });

  it('never says "taken up" when the store never says how many were lost: it says it does not know', async () => {
    const told = await drainTwoUnopened('never answers');
    expect(told).toEqual([outageEndUnreadText(2)]);
    expect(told.join('\n')).not.toMatch(/taken up/);
  });
});
