/** The reaper's schedule, against a store whose looks the test answers by hand. */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/log/index.js';
import { Reaper } from '../../lib/lease/reaper.js';
import type { DeadTurn } from '../../lib/lease/index.js';
import { DEFAULT_RETRY, type Look, type RetryPolicy } from '../../lib/store/index.js';
import { eventually } from '../support/copies.js';
import { virtualTime } from '../support/virtual-time.js';

function handStore() {
  const answers: Array<(look: Look | undefined) => void> = [];
  const policies: Array<RetryPolicy | undefined> = [];
  return {
    answers,
    policies,
    looks: () => answers.length,
    store: {
      look: (_o: unknown, _l: number, _n: number, _h?: string, options?: { policy?: RetryPolicy }) => {
        policies.push(options?.policy);
        return new Promise<Look | undefined>((resolve) => answers.push(resolve));
      },
    },
  };
}

const nothingDue: Look = { taken: [], nextDueMs: null, sinceServedMs: null, gap: null, dead: [], reindexed: 0 };

function reaperOn(
  store: Pick<ReturnType<typeof handStore>['store'], 'look'> | { look: () => Promise<Look | undefined> },
  extra: Partial<ConstructorParameters<typeof Reaper>[0]> = {},
) {
  return new Reaper({
    store: store as ConstructorParameters<typeof Reaper>[0]['store'],
    owner: { instance: 'test', role: 'cloud' },
    settings: { leaseMs: 3000, reaperMs: 60_000 },
    retry: DEFAULT_RETRY,
    resume: () => {},
    capacity: () => 16,
    heartbeat: () => '',
    log: silentLogger,
    jitter: () => 1,
    ...extra,
  });
}

describe('the reaper', () => {
  it('a dead letter its look reported is told to the owner, and its next look (soon) says so; a failed look says so again', async () => {
    // The bug: a look whose answer was lost left its dead letter unannounced for good. Now the store reports it
    // until a look carries it as told, so the copy must say so, and soon, before another copy reports it again.
    const told: Array<readonly string[] | undefined> = [];
    const answers: Array<(look: Look | undefined) => void> = [];
    const store = {
      look: (_o: unknown, _l: number, _n: number, _h?: string, options?: { told?: readonly string[] }) => {
        told.push(options?.told);
        return new Promise<Look | undefined>((resolve) => answers.push(resolve));
      },
    };
    const dead: DeadTurn[] = [];
    const reaper = reaperOn(store as never, { deadLetter: (d) => dead.push(d) });
    reaper.start();
    try {
      await eventually(() => answers.length === 1, 'the first look');
      const letter = { key: 'k-dead', eventId: 'Ev-dead', channel: 'C1', reason: 'owner died 4 times', attempts: 4, at: '2026-01-01T00:00:00Z' };
      answers[0]!({ ...nothingDue, dead: [letter] } as Look);
      await eventually(() => answers.length === 2, 'the next look, soon after the dead letter (not the 60 s idle gap)');
      expect(dead.map((d) => d.eventId)).toEqual(['Ev-dead']);
      expect(told[1]).toEqual(['k-dead']);
      // That look failed: the next one says so again.
      answers[1]!(undefined);
      await eventually(() => answers.length === 3, 'the look after the failed one', 15_000);
      expect(told[2]).toEqual(['k-dead']);
      answers[2]!(nothingDue);
      reaper.lookIn(0);
      await eventually(() => answers.length === 4, 'a later look');
      expect(told[3]).toBeUndefined();
      answers[3]!(nothingDue);
    } finally {
      reaper.stop();
    }
  });

  it('a wake that fires while a look is running is not lost: it looks again soon after, and keeps its schedule', async () => {
    // The bug: the skipped wake left a stale "next look" time behind, every later plan compared
    // against it was dropped, and the copy never looked at the store again (lapsed leases stayed untaken).
    const hand = handStore();
    // The clock stands still (the wakes still fire on real timers): a plan is read against it exactly.
    const clock = virtualTime(1_000_000);
    const reaper = reaperOn(hand.store, { now: clock.now });
    reaper.start();
    try {
      await eventually(() => hand.looks() === 1, 'the first look');
      // A slot came free, a retry is due: a look is asked for while the first is still out.
      reaper.lookIn(0);
      // Its timer fires while the first look is out: that look is skipped, and nothing is planned meanwhile.
      await eventually(() => reaper.nextAt === Infinity, 'the wake to fire during the running look', 15_000);
      expect(hand.looks()).toBe(1);
      hand.answers[0]!(nothingDue);
      await eventually(() => hand.looks() === 2, 'a look after the one that was running', 15_000);
      hand.answers[1]!(nothingDue);
      // Its idle plan stands: the next look is a reaper interval away, not never.
      await eventually(() => reaper.nextAt !== Infinity, 'the next look to be planned');
      expect(reaper.nextAt - clock.now()).toBe(60_000);
    } finally {
      reaper.stop();
    }
  });

  it('a failed look is followed by another about a second later, not a whole reaper period: 1 s, 2 s, 4 s while failing, the full period once one answers', async () => {
    // The bug: after a store outage the next look waited the full AUTOHUB_REAPER_MS (2 min), so a
    // turn abandoned during the outage was answered minutes late.
    const clock = virtualTime(1_000_000);
    const replies: Array<Look | undefined | 'throw'> = [undefined, 'throw', undefined, nothingDue];
    const store = {
      look: async () => {
        const next = replies.shift();
        if (next === 'throw') throw new Error('store unreachable');
        return next;
      },
    };
    const reaper = reaperOn(store, { now: clock.now });
    reaper.start();
    try {
      await reaper.look();
      expect(reaper.nextAt - clock.now()).toBe(1000);
      await reaper.look();
      expect(reaper.nextAt - clock.now()).toBe(2000);
      await reaper.look();
      expect(reaper.nextAt - clock.now()).toBe(4000);
      await reaper.look();
      expect(reaper.nextAt - clock.now()).toBe(60_000);
    } finally {
      reaper.stop();
    }
  });

  it('the backoff after failed looks never exceeds the reaper period', async () => {
    const clock = virtualTime(1_000_000);
    const reaper = reaperOn({ look: async () => undefined }, { now: clock.now, settings: { leaseMs: 3000, reaperMs: 5000 } });
    reaper.start();
    try {
      const gaps: number[] = [];
      for (let i = 0; i < 5; i++) {
        await reaper.look();
        gaps.push(reaper.nextAt - clock.now());
      }
      expect(gaps).toEqual([1000, 2000, 4000, 5000, 5000]);
    } finally {
      reaper.stop();
    }
  });

  it('a look is given the retry policy, and each turn it dead-lettered (owners that kept dying) is reported once, through deadLetter', async () => {
    // The bug: a takeover counted no run, so a turn that killed every copy running it was taken over forever.
    const hand = handStore();
    const dead: DeadTurn[] = [];
    const reaper = reaperOn(hand.store, { retry: { ...DEFAULT_RETRY, attempts: 2 }, deadLetter: (d) => dead.push(d) });
    const looked = reaper.look();
    await eventually(() => hand.looks() === 1, 'the look');
    expect(hand.policies[0]).toMatchObject({ attempts: 2 });
    const letter = {
      key: 'autohub:claim:T1:event:Ev1',
      eventId: 'Ev1',
      channel: 'C1',
      reason: 'owner died 2 times',
      attempts: 2,
      at: new Date(0).toISOString(),
    };
    hand.answers[0]!({ ...nothingDue, dead: [letter] });
    await looked;
    expect(dead).toEqual([{ key: letter.key, eventId: 'Ev1', channel: 'C1', reason: 'owner died 2 times', attempts: 2 }]);
  });
});
