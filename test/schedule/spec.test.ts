/** A bot's `schedules` checked at start-up: each wrong entry named in one line; slots as both copies compute them, across daylight saving. */
import { describe, expect, it } from 'vitest';
import { checkedSchedules, parseSchedules } from '../../lib/schedule/index.js';
import { ConfigError } from '../../lib/errors/index.js';

const expected = (value: unknown) => {
  const parsed = parseSchedules(value);
  return parsed.ok ? 'ok' : parsed.expected;
};

describe('checking schedules at start-up', () => {
  it.each([
    ['a cron the library refuses', [{ name: 'brief', cron: '61 * * * *', channel: 'C1' }], /schedule "brief": a cron expression.*Invalid value for minute/],
    ['an unknown time zone', [{ name: 'brief', cron: '0 8 * * *', timezone: 'Mars/Olympus', channel: 'C1' }], /schedule "brief".*"Mars\/Olympus" is refused/],
    ['no target', [{ name: 'brief', cron: '0 8 * * *' }], /schedule "brief": one of channel or dm/],
    ['two targets', [{ name: 'brief', cron: '0 8 * * *', channel: 'C1', dm: 'U1' }], /one of channel or dm/],
    ['neither cron nor everyMs', [{ name: 'brief', channel: 'C1' }], /one of cron or everyMs/],
    ['an everyMs under a second', [{ name: 'tick', everyMs: 10, channel: 'C1' }], /everyMs to be a whole number of ms, at least 1000/],
    ['a name that cannot name a claim', [{ name: 'my brief', cron: '0 8 * * *', channel: 'C1' }], /a name of letters, digits/],
    [
      'a name twice',
      [
        { name: 'a', everyMs: 60_000, channel: 'C1' },
        { name: 'a', everyMs: 60_000, channel: 'C2' },
      ],
      /two schedules have it/,
    ],
    ['a wrong missed', [{ name: 'a', everyMs: 60_000, channel: 'C1', missed: 'all' }], /missed to be 'latest' or 'skip'/],
    ['not an array', { name: 'a' }, /schedules, when exported, to be an array/],
  ])('refuses %s, naming it', (_what, value, message) => {
    expect(expected(value)).toMatch(message);
  });

  it('takes none, a cron in a time zone and an everyMs', () => {
    expect(expected(undefined)).toBe('ok');
    expect(
      expected([
        { name: 'brief', cron: '0 8 * * 1-5', timezone: 'Europe/Paris', dm: 'U1' },
        { name: 'tick', everyMs: 60_000, channel: 'C1', missed: 'skip' },
      ]),
    ).toBe('ok');
  });

  it('stops start-up with a ConfigError naming AUTOHUB_TURN, in one line', () => {
    const error = (() => {
      try {
        checkedSchedules([{ name: 'brief', cron: 'nope', channel: 'C1' }], 'bots/brief.ts');
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toMatch(/^AUTOHUB_TURN is invalid: expected schedule "brief": a cron expression/);
    expect(error?.message).not.toContain('\n');
  });
});

describe('slots', () => {
  it('follows a time zone across daylight saving: 08:00 in Paris is 07:00 UTC before the change and 06:00 after', () => {
    const [brief] = checkedSchedules([{ name: 'brief', cron: '0 8 * * *', timezone: 'Europe/Paris', channel: 'C1' }]);
    const before = brief!.nextAfter(Date.parse('2026-03-28T00:00:00Z'));
    const after = brief!.nextAfter(before!);
    expect(new Date(before!).toISOString()).toBe('2026-03-28T07:00:00.000Z');
    expect(new Date(after!).toISOString()).toBe('2026-03-29T06:00:00.000Z');
    // The latest slot at or before a slot is that slot (a copy firing exactly on time names it).
    expect(brief!.latestAtOrBefore(after!)).toBe(after);
    expect(brief!.latestAtOrBefore(after! - 1)).toBe(before);
  });

  it('counts everyMs from the epoch, so two copies started apart name the same slots', () => {
    const [tick] = checkedSchedules([{ name: 'tick', everyMs: 60_000, channel: 'C1' }]);
    expect(tick!.nextAfter(1_000_030_000)).toBe(1_000_080_000);
    expect(tick!.nextAfter(1_000_080_000)).toBe(1_000_140_000);
    expect(tick!.latestAtOrBefore(1_000_079_999)).toBe(1_000_020_000);
  });
});
