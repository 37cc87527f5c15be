/** The edge's inbox on the status page and in the health body, at fixed instants. */
import { describe, expect, it } from 'vitest';
import { inboxView } from '../../lib/liveness/index.js';
import { inboxLine, statusBlocks, type StatusSnapshot } from '../../lib/status/index.js';

const NOW = Date.parse('2026-12-02T08:00:00Z');
const H = 3_600_000;

describe('the health body inbox, from what the drainer last saw (inboxView)', () => {
  it.each([
    ['never looked yet', undefined, { size: 0, oldest_at: null, oldest_age_s: null, expired: 0, checked_at: null }],
    [
      'empty',
      { size: 0, oldestAt: undefined, expired: 0, checkedAt: NOW - 60_000 },
      { size: 0, oldest_at: null, oldest_age_s: null, checked_at: '2026-12-02T07:59:00.000Z' },
    ],
    [
      'three kept, the oldest two hours old now (aged to now, not to the look)',
      { size: 3, oldestAt: NOW - 2 * H, expired: 4, checkedAt: NOW - H },
      { size: 3, oldest_at: '2026-12-02T06:00:00.000Z', oldest_age_s: 7200, expired: 4, checked_at: '2026-12-02T07:00:00.000Z' },
    ],
  ])('%s', (_, seen, expected) => {
    expect(inboxView(seen, NOW)).toMatchObject(expected);
  });
});

describe("the status page's inbox line (inboxLine)", () => {
  it('says nothing where the copy drains no inbox (no shared store)', () => {
    expect(inboxLine(undefined, NOW)).toBeUndefined();
  });
  it('before the first read, not read yet (not "empty")', () => {
    expect(inboxLine(inboxView(undefined, NOW), NOW)).toBe("*Edge's inbox*: not read yet");
  });
  it('an empty inbox: empty, and when it was checked', () => {
    expect(inboxLine(inboxView({ size: 0, oldestAt: undefined, checkedAt: NOW - 5 * 60_000 }, NOW), NOW)).toBe("*Edge's inbox*: empty (checked 5m ago)");
  });
  it('a held inbox: its size and its oldest entry, with a warning', () => {
    const line = inboxLine(inboxView({ size: 3, oldestAt: NOW - 2 * H, checkedAt: NOW - 60_000 }, NOW), NOW);
    expect(line).toBe("*Edge's inbox*: :warning: 3 kept, not answered yet, the oldest kept 2h ago (checked 1m ago)");
  });
  it('entries dropped for age are shown, never silently', () => {
    expect(inboxLine(inboxView({ size: 0, oldestAt: undefined, expired: 12, checkedAt: NOW }, NOW), NOW)).toContain(':warning: 12 dropped for age');
  });
  it('the line is on the page beside the claim store', () => {
    const snapshot: StatusSnapshot = {
      answering: { role: 'hub', instance: 'hub-mac' },
      copies: [],
      storeKind: 'upstash',
      storeOk: true,
      turns: [],
      failoverTimes: [],
      refusals: [],
      cloudLastServed: null,
      dead: [],
      inbox: inboxView({ size: 2, oldestAt: NOW - 30 * 60_000, checkedAt: NOW }, NOW),
    };
    expect(JSON.stringify(statusBlocks(snapshot, NOW))).toContain("*Edge's inbox*: :warning: 2 kept, not answered yet, the oldest kept 30m ago");
  });
});
