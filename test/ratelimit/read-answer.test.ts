/**
 * A JSON answer the rate-limit fetch read for its own look is handed on with
 * its text, not rebuilt: what the WebClient reads of it (status, headers, the
 * body once) is the network's answer as it came.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { silentLogger, slackLogger } from '../../lib/log/index.js';
import { createRateLimitFetch } from '../../lib/ratelimit/index.js';

const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

describe('an answer read once by the rate-limit fetch', () => {
  it('reaches the caller with its status, headers and text, and its body can be taken once only', async () => {
    // Catches: a handed-on answer that lost the network's headers, or whose body could be read twice (served from a copy).
    const fetch = createRateLimitFetch({ fetch: async () => json({ ok: true, ts: '1.2' }, { 'x-oauth-scopes': 'chat:write' }) });
    const answer = await fetch('https://slack.test/api/chat.postMessage', { method: 'POST', body: 'channel=C1' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-oauth-scopes')).toBe('chat:write');
    expect(answer.bodyUsed).toBe(false);
    expect(await answer.text()).toBe('{"ok":true,"ts":"1.2"}');
    expect(answer.bodyUsed).toBe(true);
    await expect(answer.text()).rejects.toThrow(TypeError);
  });

  it('is what a real WebClient parses: its result and the scopes from the headers', async () => {
    // Catches: an answer the WebClient cannot read (no headers.get, or a text() that was used up by the throttle check).
    const fetch = createRateLimitFetch({ fetch: async () => json({ ok: true, channel: 'C1' }, { 'x-oauth-scopes': 'chat:write, im:write' }) });
    const web = new WebClient('xoxb-test', { slackApiUrl: 'https://slack.test/api/', retryConfig: { retries: 0 }, fetch, logger: slackLogger(silentLogger) });
    const result = await web.chat.postMessage({ channel: 'C1', text: 'hi' });
    expect(result).toMatchObject({ ok: true, channel: 'C1', response_metadata: { scopes: ['chat:write', 'im:write'] } });
  });
});
