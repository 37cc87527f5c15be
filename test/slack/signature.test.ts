/**
 * The signature check, a pure decision, as a table at fixed
 * instants. Each row names the request it must refuse (or take) and why.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSignature, MAX_SKEW_SECONDS } from '../../lib/slack/index.js';

const SECRET = 'table-secret';
const NOW = Date.parse('2026-12-01T12:00:00Z');
const hmac = (secret: string, data: Uint8Array) => createHmac('sha256', secret).update(data).digest('hex');
const body = Buffer.from('{"type":"event_callback"}');
const ts = (offsetS: number) => String(Math.floor(NOW / 1000) + offsetS);
const sign = (timestamp: string, raw: Buffer = body, secret = SECRET) => `v0=${hmac(secret, Buffer.from(`v0:${timestamp}:${raw.toString('utf8')}`))}`;

describe('checkSignature', () => {
  it.each([
    ['a fresh, well-signed request', ts(0), sign(ts(0)), { ok: true }],
    ['one signed at the edge of the 5-minute window', ts(-MAX_SKEW_SECONDS), sign(ts(-MAX_SKEW_SECONDS)), { ok: true }],
    ['a replay older than 5 minutes', ts(-MAX_SKEW_SECONDS - 1), sign(ts(-MAX_SKEW_SECONDS - 1)), { ok: false, reason: 'stale' }],
    [
      'a timestamp more than 5 minutes ahead (Bolt lets these through)',
      ts(MAX_SKEW_SECONDS + 1),
      sign(ts(MAX_SKEW_SECONDS + 1)),
      { ok: false, reason: 'future' },
    ],
    ['a signature under another secret', ts(0), sign(ts(0), body, 'stale-secret'), { ok: false, reason: 'mismatch' }],
    ['a signature of another body', ts(0), sign(ts(0), Buffer.from('{}')), { ok: false, reason: 'mismatch' }],
    ['no signature', ts(0), undefined, { ok: false, reason: 'missing' }],
    ['no timestamp', undefined, sign(ts(0)), { ok: false, reason: 'missing' }],
    ['a timestamp that is not a number', 'soon', sign(ts(0)), { ok: false, reason: 'malformed' }],
    ['a signature of the wrong shape', ts(0), 'v1=abc', { ok: false, reason: 'malformed' }],
  ])('%s', async (_name, timestamp, signature, expected) => {
    expect(await checkSignature({ signingSecret: SECRET, timestamp, signature, body, now: NOW, hmac })).toEqual(expected);
  });
});
