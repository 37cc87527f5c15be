/**
 * The owner's note at an outage's end says what became of the kept deliveries, even when the store stumbles
 * as it is asked. The bugs these catch: the lost counts read as none when the store did not answer that one
 * read, and the owner was told "All 2 deliveries the edge kept are taken up" of two that no copy could open
 * (CI's drill saw it once, in both-down-edge-key); and a read asked again after its reply was lost found the
 * counts that read had reset, and told the same.
 */
import { describe, expect, it } from 'vitest';
import { outageEndText, outageEndUnreadText } from '../../lib/inbox/index.js';
import { fakeInbox, type LostReadFault, openingNothing } from '../support/fake-inbox.js';

/** An outage of two deliveries sealed with a key no copy holds, ended by this drain: what the owner was told. */
async function drainTwoUnopened(lostReads: (read: number) => LostReadFault) {
  const inbox = fakeInbox({ lostReads });
  inbox.members.push({ member: 'sealed.other-key.1', arrivedAt: 1 }, { member: 'sealed.other-key.2', arrivedAt: 2 });
  const told: string[] = [];
  await openingNothing(inbox.store, { told, endOutage: async () => 2 }).drain('start');
  return told;
}

describe("the outage's end note", () => {
  it('counts what could not be opened when the lost counts answer on a second read', async () => {
    expect(await drainTwoUnopened((read) => (read === 1 ? 'before' : undefined))).toEqual([outageEndText(2, 2, 2)]);
  });

  it('counts them when the first read ran but its reply was lost: the second asks under the same receipt', async () => {
    expect(await drainTwoUnopened((read) => (read === 1 ? 'after' : undefined))).toEqual([outageEndText(2, 2, 2)]);
  });

  it('never says "taken up" when the store never says how many were lost: it says it does not know', async () => {
    const told = await drainTwoUnopened(() => 'before');
    expect(told).toEqual([outageEndUnreadText(2)]);
    expect(told.join('\n')).not.toMatch(/taken up/);
  });
});
