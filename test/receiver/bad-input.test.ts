import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { computeSignature, signedHeaders } from '../../lib/slack/index.js';
import { commandForm, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { quiescent, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('bad input is refused with its status and never runs a turn', () => {
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, env: { AUTOHUB_MAX_BODY_BYTES: '4096' } });

  const valid = JSON.stringify(mentionEnvelope({ eventId: 'Ev-bad', ts: '1700000000.000001' }));
  const now = () => Date.now();
  const sign = (body: string, at = now()) => signedHeaders(SECRET, body, at);

  const cases: Array<[string, () => Promise<{ headers: Record<string, string>; body: string }>, number]> = [
    ['unsigned', async () => ({ headers: { 'content-type': 'application/json' }, body: valid }), 401],
    [
      'wrong signature',
      async () => ({
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': String(Math.floor(now() / 1000)),
          'x-slack-signature': await computeSignature('not-the-secret', String(Math.floor(now() / 1000)), new TextEncoder().encode(valid)),
        },
        body: valid,
      }),
      401,
    ],
    [
      'stale timestamp (6 minutes old)',
      async () => ({ headers: { 'content-type': 'application/json', ...(await sign(valid, now() - 6 * 60_000)) }, body: valid }),
      401,
    ],
    [
      'future timestamp (6 minutes ahead)',
      async () => ({ headers: { 'content-type': 'application/json', ...(await sign(valid, now() + 6 * 60_000)) }, body: valid }),
      401,
    ],
    ['malformed JSON', async () => ({ headers: { 'content-type': 'application/json', ...(await sign('{"type":')) }, body: '{"type":' }), 400],
    ['unknown content type', async () => ({ headers: { 'content-type': 'text/plain', ...(await sign(valid)) }, body: valid }), 415],
    [
      'oversized body',
      async () => {
        const big = JSON.stringify({ ...mentionEnvelope({ eventId: 'Ev-big', ts: '1.1' }), pad: 'x'.repeat(8000) });
        return { headers: { 'content-type': 'application/json', ...(await sign(big)) }, body: big };
      },
      413,
    ],
    [
      'missing event_id',
      async () => {
        const body = JSON.stringify({ ...mentionEnvelope({ eventId: 'x', ts: '1.1' }), event_id: undefined });
        return { headers: { 'content-type': 'application/json', ...(await sign(body)) }, body };
      },
      400,
    ],
    [
      'a form that is no Slack payload',
      async () => ({ headers: { 'content-type': 'application/x-www-form-urlencoded', ...(await sign('a=1')) }, body: 'a=1' }),
      400,
    ],
  ];

  it.each(cases)('%s', async (_, build, status) => {
    const before = api.calls.length;
    const { headers, body } = await build();
    const response = await fetch(hub.eventsUrl, { method: 'POST', headers, body });
    expect(response.status).toBe(status);
    // Who answered is said only to a caller whose signature held.
    const signedAndVerified = status !== 401 && status !== 413;
    expect(response.headers.get('x-autohub-claim')).toBe(signedAndVerified ? 'none' : null);
    expect(response.headers.get('x-autohub-instance')).toBe(signedAndVerified ? 'hub-test' : null);
    await quiescent([hub]);
    expect(api.calls.length).toBe(before);
    expect((await fetch(hub.healthUrl)).status).toBe(200);
  });

  it('answers ssl_check and url_verification without running a turn', async () => {
    const ssl = 'ssl_check=1&token=x';
    expect(
      (await fetch(hub.eventsUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(await sign(ssl)) }, body: ssl }))
        .status,
    ).toBe(200);
    const challenge = JSON.stringify({ type: 'url_verification', challenge: 'abc123', token: 'x' });
    const response = await fetch(hub.eventsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await sign(challenge)) },
      body: challenge,
    });
    expect(await response.json()).toEqual({ challenge: 'abc123' });
  });

  it('an unsigned ssl_check (Slack testing a slash command URL) gets 200, saying nothing about the copy and running nothing', async () => {
    const before = api.calls.length;
    const response = await fetch(hub.eventsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ssl_check=1&token=legacy',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-instance')).toBeNull();
    expect(response.headers.get('x-autohub-claim')).toBeNull();
    await quiescent([hub]);
    expect(api.calls.length).toBe(before);
  });

  it.each([
    ['beside a slash command', `${commandForm({ triggerId: 'trig-ssl' })}&ssl_check=1`],
    ['beside an interaction payload', `ssl_check=1&payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions', trigger_id: 'trig-ssl2' }))}`],
    ['with a value other than 1', 'ssl_check=yes'],
  ])('an unsigned ssl_check %s is refused with 401: only the bare check passes unsigned', async (_, body) => {
    const response = await fetch(hub.eventsUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(response.status).toBe(401);
  });

  it("app_rate_limited (Slack dropping the app's events) is answered 200, not 400, and logged as slack.app_rate_limited", async () => {
    // The envelope as https://api.slack.com/events/app_rate_limited shows it: no inner event.
    const envelope = JSON.stringify({
      token: 'legacy',
      type: 'app_rate_limited',
      team_id: 'T0AUTOHUB',
      minute_rate_limited: 1518467820,
      api_app_id: 'A0AUTOHUB',
    });
    const response = await fetch(hub.eventsUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...(await sign(envelope)) }, body: envelope });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-claim')).toBe('none');
    const line = hub.lines.find((l) => l.event === 'slack.app_rate_limited');
    expect(line).toMatchObject({ level: 'warn', teamId: 'T0AUTOHUB', apiAppId: 'A0AUTOHUB', minuteRateLimited: 1518467820 });
    expect(JSON.stringify(line)).not.toContain('legacy');
  });

  it('other paths get 404 and other methods 405', async () => {
    expect((await fetch(`${hub.url}/nope`)).status).toBe(404);
    expect((await fetch(hub.eventsUrl)).status).toBe(405);
  });

  it('fuzz: arbitrary headers and bodies never get a 5xx, and nothing unsigned runs a turn', async () => {
    const before = api.calls.length;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          contentType: fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain', ''),
          body: fc.oneof(fc.string(), fc.json(), fc.constant(valid), fc.constant('payload=%7B')),
          timestamp: fc.oneof(fc.constant(undefined), fc.string(), fc.integer().map(String)),
          signature: fc.oneof(
            fc.constant(undefined),
            fc.string(),
            fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }).map((h) => `v0=${h}`),
          ),
          retryNum: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 5 })),
        }),
        async (r) => {
          const headers: Record<string, string> = {};
          if (r.contentType) headers['content-type'] = r.contentType;
          if (r.timestamp !== undefined) headers['x-slack-request-timestamp'] = r.timestamp.replace(/[^\x20-\x7e]/g, '');
          if (r.signature !== undefined) headers['x-slack-signature'] = r.signature.replace(/[^\x20-\x7e]/g, '');
          if (r.retryNum !== undefined) headers['x-slack-retry-num'] = r.retryNum.replace(/[^\x20-\x7e]/g, '');
          const response = await fetch(hub.eventsUrl, { method: 'POST', headers, body: r.body });
          await response.arrayBuffer();
          expect(response.status).toBeLessThan(500);
          expect(response.status).toBe(401);
        },
      ),
      { numRuns: 150 },
    );
    await quiescent([hub]);
    expect(api.calls.length).toBe(before);
  });

  it('fuzz: signed garbage is refused with a 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
        fc.oneof(fc.string(), fc.json(), fc.constant('payload=%7B%7D'), fc.constant('payload=not-json')),
        async (contentType, body) => {
          const response = await fetch(hub.eventsUrl, { method: 'POST', headers: { 'content-type': contentType, ...(await sign(body)) }, body });
          await response.arrayBuffer();
          expect(response.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
    expect((await fetch(hub.healthUrl)).status).toBe(200);
  });
});
