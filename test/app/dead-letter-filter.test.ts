import { describe, expect, it } from 'vitest';
import { parseDuration, selectDead } from '../../app/cli/dead-letter-filter.js';
import type { DeadLetter } from '../../lib/store/index.js';

const NOW = Date.parse('2026-12-06T12:00:00.000Z');
const letter = (eventId: string, minutesAgo: number, reason: string): DeadLetter => ({
  key: `k-${eventId}`,
  eventId,
  channel: 'C1',
  reason,
  attempts: 1,
  at: new Date(NOW - minutesAgo * 60_000).toISOString(),
});
// As listDead gives them: newest first.
const LETTERS = [letter('Ev-new', 5, 'slack: not_in_channel'), letter('Ev-mid', 90, 'timeout'), letter('Ev-old', 60 * 30, 'slack: NOT_IN_CHANNEL')];

describe('selectDead', () => {
  it('--all takes every letter, oldest first (the order they died in, the order a replay should answer)', () => {
    expect(selectDead(LETTERS, { all: true }, NOW).map((d) => d.eventId)).toEqual(['Ev-old', 'Ev-mid', 'Ev-new']);
  });

  it('two that died in the same millisecond keep the order they died in (listDead gives the later first)', () => {
    const same = [letter('Ev-second', 1, 'x'), letter('Ev-first', 1, 'x')];
    expect(selectDead(same, { all: true }, NOW).map((d) => d.eventId)).toEqual(['Ev-first', 'Ev-second']);
  });

  it('--since takes those dead within the window, and the edge of the window is in it', () => {
    expect(selectDead(LETTERS, { all: false, sinceMs: 2 * 3_600_000 }, NOW).map((d) => d.eventId)).toEqual(['Ev-mid', 'Ev-new']);
    expect(selectDead(LETTERS, { all: false, sinceMs: 90 * 60_000 }, NOW).map((d) => d.eventId)).toEqual(['Ev-mid', 'Ev-new']);
  });

  it('--cause matches part of the reason in any case', () => {
    expect(selectDead(LETTERS, { all: false, cause: 'not_in' }, NOW).map((d) => d.eventId)).toEqual(['Ev-old', 'Ev-new']);
  });

  it('--since and --cause together take only letters both match', () => {
    expect(selectDead(LETTERS, { all: false, sinceMs: 3_600_000, cause: 'not_in_channel' }, NOW).map((d) => d.eventId)).toEqual(['Ev-new']);
  });
});

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['30d', 604_800_000], // kept 7 days: a longer window finds nothing more
  ])('%s is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
  it.each(['2', 'h', '0h', '-2h', '2 hours', '1.5h', ''])('%j is a usage error naming --since', (text) => {
    expect(() => parseDuration(text)).toThrow(/--since takes a duration such as 90s, 30m, 2h or 7d/);
  });
});
