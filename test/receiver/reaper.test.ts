/** The reaper's schedule, against a store whose looks the test answers by hand. */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/log/index.js';
import { Reaper } from '../../lib/receiver/reaper.js';
import type { Look } from '../../lib/store/index.js';
import { eventually } from '../support/copies.js';

function handStore() {
  const answers: Array<(look: Look) => void> = [];
  return {
    answers,
    looks: () => answers.length,
    store: { look: () => new Promise<Look | undefined>((resolve) => answers.push(resolve)) },
  };
}

const nothingDue: Look = { taken: [], nextDueMs: null, sinceServedMs: null, gap: null };

describe('the reaper', () => {
  it('a wake that fires while a look is running is not lost: it looks again soon after, and keeps its schedule', async () => {
    // The bug: the skipped wake left a stale "next look" time behind, every later plan compared
    // against it was dropped, and the copy never looked at the store again (lapsed leases stayed untaken).
    const hand = handStore();
    const reaper = new Reaper({
      store: hand.store,
      owner: { instance: 'test', role: 'cloud' },
      settings: { leaseMs: 3000, reaperMs: 60_000 },
      resume: () => {},
      capacity: () => 16,
      heartbeat: () => '',
      log: silentLogger,
      jitter: () => 1,
    });
    reaper.start();
    try {
      await eventually(() => hand.looks() === 1, 'the first look');
      // A slot came free, a retry is due: a look is asked for while the first is still out.
      reaper.wakeIn(0);
      // Its timer fires while the first look is out: that look is skipped, and nothing is planned meanwhile.
      await eventually(() => reaper.nextAt === Infinity, 'the wake to fire during the running look', 2000);
      expect(hand.looks()).toBe(1);
      hand.answers[0]!(nothingDue);
      await eventually(() => hand.looks() === 2, 'a look after the one that was running', 2000);
      hand.answers[1]!(nothingDue);
      // Its idle plan stands: the next look is a reaper interval away, not never.
      await eventually(() => reaper.nextAt !== Infinity, 'the next look to be planned');
      expect(reaper.nextAt - Date.now()).toBeGreaterThan(50_000);
    } finally {
      reaper.stop();
    }
  });
});
