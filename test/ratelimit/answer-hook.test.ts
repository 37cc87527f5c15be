/** The rate-limit fetch's `onAnswer` hook sees every Web API answer (the owner notices read auth failures from it) and changes none. */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { silentLogger, slackLogger } from '../../lib/log/index.js';
import { createRateLimitFetch, type WebApiAnswer } from '../../lib/ratelimit/index.js';
import { eventually } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { virtualTime } from '../support/virtual-time.js';

describe('onAnswer under a real WebClient, against a loopback Web API', () => {
  const api = useFakeWebApi();

  const client = (onAnswer: (a: WebApiAnswer) => void) => {
    const time = virtualTime();
    const fetch = createRateLimitFetch({ now: time.now, sleep: time.sleep, onAnswer });
    return new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 }, fetch, logger: slackLogger(silentLogger) });
  };

  it('sees a success, an error code, and a refusal then its retry, with the answers the caller gets unchanged', async () => {
    const seen: WebApiAnswer[] = [];
    const web = client((a) => seen.push(a));
    expect((await web.auth.test()).ok).toBe(true);
    api.script('auth.test', { status: 200, body: { ok: false, error: 'token_revoked' } });
    await expect(web.auth.test()).rejects.toThrow('token_revoked');
    api.script('chat.postMessage', { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '1' } });
    expect((await web.chat.postMessage({ channel: 'C1', text: 'hi' })).ok).toBe(true);
    await eventually(() => seen.length === 4, 'four answers');
    expect(seen).toEqual([
      { method: 'auth.test', status: 200, error: undefined },
      { method: 'auth.test', status: 200, error: 'token_revoked' },
      { method: 'chat.postMessage', status: 429, error: 'ratelimited' },
      { method: 'chat.postMessage', status: 200, error: undefined },
    ]);
  });

  it('an observer that throws does not fail the call', async () => {
    const web = client(() => {
      throw new Error('observer bug');
    });
    expect((await web.auth.test()).ok).toBe(true);
  });
});
