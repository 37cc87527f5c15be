import { describe, expect, it } from 'vitest';
import { classifyResponse, replayVerdict, retryAfterSeconds } from '../../lib/ratelimit/index.js';

const THROTTLED = { ok: false, error: 'ratelimited' };

describe('retryAfterSeconds', () => {
  it.each([
    [{ 'Retry-After': '12' }, 12, 'header'],
    [{ 'retry-after': '7' }, 7, 'header'],
    [{ 'RETRY-AFTER': '7' }, 7, 'header'],
    [{ ' Retry-After ': '7' }, 7, 'header'],
    [{ 'Retry-After': '0.5' }, 0.5, 'header'],
    [{}, 30, 'absent'],
    [null, 30, 'absent'],
    [undefined, 30, 'absent'],
    [{ 'Retry-After': '  ' }, 30, 'empty'],
    [{ 'Retry-After': 'Wed, 21 Oct 2026 07:28:00 GMT' }, 30, 'unparseable'],
    [{ 'Retry-After': '12abc' }, 30, 'unparseable'],
    [{ 'Retry-After': 'Infinity' }, 30, 'unparseable'],
    [{ 'Retry-After': '0' }, 1, 'zero'],
    [{ 'Retry-After': '-5' }, 30, 'negative'],
    [{ 'Retry-After': '86400' }, 600, 'clamped'],
    [{ 'Retry-After': 3 }, 3, 'header'],
  ])('%j waits %ss (%s)', (headers, seconds, source) => {
    const result = retryAfterSeconds(headers as Record<string, unknown> | null);
    expect(result.seconds).toBe(seconds);
    expect(result.source).toBe(source);
    expect(result.detail.length).toBeGreaterThan(10);
  });

  it('reads a Headers object too', () => {
    expect(retryAfterSeconds(new Headers({ 'Retry-After': '9' }))).toMatchObject({ seconds: 9, source: 'header' });
    expect(retryAfterSeconds(new Headers())).toMatchObject({ seconds: 30, source: 'absent' });
  });

  it('says a default is a default', () => {
    expect(retryAfterSeconds({}).detail).toMatch(/default/);
    expect(retryAfterSeconds({ 'Retry-After': '12' }).detail).toMatch(/12/);
  });
});

describe('classifyResponse', () => {
  it.each([
    [429, {}, 'throttled-429'],
    [429, THROTTLED, 'throttled-429'],
    [200, THROTTLED, 'throttled-200'],
    [200, { ok: true }, 'ok'],
    [200, { ok: false, error: 'not_in_channel' }, 'refused'],
    [502, {}, 'unreadable'],
    [200, 'html', 'unreadable'],
    ['200', THROTTLED, 'throttled-200'],
  ])('HTTP %s %j is %s', (status, body, state) => {
    expect(classifyResponse(status, body).state).toBe(state);
  });

  it('does not dress a refusal up as a rate limit', () => {
    expect(classifyResponse(200, { ok: false, error: 'not_in_channel' }).detail).toMatch(/not a rate limit/);
  });
});

describe('replayVerdict', () => {
  it.each([
    [{ method: 'users.list', status: 429, body: {}, headers: { 'Retry-After': '30' }, waited: 30.2 }, 'honoured', 'throttled-429'],
    [{ method: 'conversations.history', status: 200, body: THROTTLED, headers: { 'Retry-After': '60' }, waited: 1 }, 'retried-early', 'throttled-200'],
    [{ method: 'users.list', status: 429, body: {}, headers: { 'Retry-After': '3' }, waited: 60 }, 'slept-blind', 'throttled-429'],
    [{ method: 'users.list', status: 429, body: {}, headers: {}, waited: null }, 'no-wait-recorded', 'throttled-429'],
    [{ method: 'u', status: 429, body: {}, headers: {}, waited: 'soon' }, 'no-wait-recorded', 'throttled-429'],
    [{ method: 'auth.test', status: 200, body: { ok: true }, headers: {}, waited: 0 }, 'not-a-refusal', 'ok'],
    [{ method: 'x', status: 429, body: {}, headers: { 'retry-after': '10' }, waited: 9.5 }, 'honoured', 'throttled-429'],
    [{ method: 'x', status: 429, body: {}, headers: { 'retry-after': '10' }, waited: 9.49 }, 'retried-early', 'throttled-429'],
    [{ method: 'x', status: 429, body: {}, headers: { 'retry-after': '10' }, waited: 40 }, 'honoured', 'throttled-429'],
    [{ method: 'x', status: 429, body: {}, headers: { 'retry-after': '10' }, waited: 40.1 }, 'slept-blind', 'throttled-429'],
    [{ method: 'x', status: 429, body: {}, headers: { 'retry-after': null }, waited: 30 }, 'honoured', 'throttled-429'],
  ])('%j is %s', (record, verdict, state) => {
    const judgement = replayVerdict(record);
    expect(judgement.verdict).toBe(verdict);
    expect(judgement.state).toBe(state);
  });

  it('says why an early retry hurts', () => {
    const { detail } = replayVerdict({ method: 'conversations.history', status: 200, body: THROTTLED, headers: { 'Retry-After': '60' }, waited: 1 });
    expect(detail).toMatch(/has not reopened/);
  });

  it('survives a record that is not an object', () => {
    expect(replayVerdict(null).verdict).toBe('not-a-refusal');
  });
});

describe("Slack's second throttle code, rate_limited (posted too many messages)", () => {
  it('is a throttle, not a refusal', () => {
    expect(classifyResponse(200, { ok: false, error: 'rate_limited' }).state).toBe('throttled-200');
  });

  it('a refusal waited out in full is honoured; one sent again early is not', () => {
    const record = {
      method: 'chat.postMessage',
      status: 200,
      body: { ok: false, error: 'rate_limited' },
      headers: { 'retry-after': '3' },
      at: '2026-11-30T00:00:00Z',
      instance: 'hub',
    };
    expect(replayVerdict({ ...record, waited: 3 }).verdict).toBe('honoured');
    expect(replayVerdict({ ...record, waited: 1 }).verdict).toBe('retried-early');
  });
});
