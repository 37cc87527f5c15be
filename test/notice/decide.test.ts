import { describe, expect, it } from 'vitest';
import { appRateLimitedDetail, isAuthFailure, NOTICE_EVERY_MS, noticeStep, type NoticeState } from '../../lib/notice/index.js';

const HOUR = NOTICE_EVERY_MS;

describe('noticeStep: tell the owner once per cause per hour', () => {
  it.each<[string, NoticeState | undefined, number, boolean, number | undefined, NoticeState]>([
    ['the first occurrence is told at once', undefined, 0, true, 1, { toldAt: 0, count: 0 }],
    ['a second within the hour is counted, not told', { toldAt: 0, count: 0 }, HOUR - 1, false, undefined, { toldAt: 0, count: 1 }],
    ['a fifth within the hour is counted, not told', { toldAt: 0, count: 3 }, 30 * 60_000, false, undefined, { toldAt: 0, count: 4 }],
    ['the first an hour after the notice is told, with everything since', { toldAt: 0, count: 4 }, HOUR, true, 5, { toldAt: HOUR, count: 0 }],
    ['a day later it is told again as a first', { toldAt: 0, count: 0 }, 24 * HOUR, true, 1, { toldAt: 24 * HOUR, count: 0 }],
  ])('%s', (_, state, now, tell, count, next) => {
    const step = noticeStep(state, now);
    expect(step.tell).toBe(tell);
    if (step.tell) expect([step.count, step.first]).toEqual([count, state === undefined]);
    expect(step.next).toEqual(next);
  });

  it('a clock at 0 is a time like any other (no falsy shortcut)', () => {
    expect(noticeStep({ toldAt: 0, count: 0 }, 10).tell).toBe(false);
  });
});

describe('which Web API errors mean the token no longer works', () => {
  it.each([
    ['invalid_auth', true],
    ['token_revoked', true],
    ['account_inactive', true],
    ['not_in_channel', false],
    ['ratelimited', false],
    [undefined, false],
  ])('%s: %s', (error, expected) => {
    expect(isAuthFailure(error)).toBe(expected);
  });
});

describe('appRateLimitedDetail', () => {
  it('names the workspace and the minute Slack began dropping events', () => {
    // The example of https://api.slack.com/events/app_rate_limited: 1518467820 is 2018-02-12 20:37 UTC.
    expect(appRateLimitedDetail({ teamId: 'T123456', minuteRateLimited: 1518467820 })).toBe('workspace T123456, since 2018-02-12 20:37 UTC');
    expect(appRateLimitedDetail({ teamId: undefined, minuteRateLimited: undefined })).toBe('workspace unknown');
  });
});
