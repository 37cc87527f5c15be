/**
 * AUTOHUB_ALERT_URL's sender against a real webhook on loopback: delivered
 * as one JSON body Slack, Discord and ntfy each read; retried after a 500;
 * given up after a bounded number of attempts (and a 4xx not retried);
 * never logging the URL whole (its path and query hold the token); a full
 * queue drops, it does not grow.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALERT_TEXT_MAX, AlertSender, alertText } from '../../lib/alert/index.js';
import { createMemoryLogger } from '../../lib/log/index.js';
import { eventually } from '../support/copies.js';
import { HOOK_TOKEN, startAlertHook, type AlertHook } from './alert-hook.js';

describe('the alert sender', () => {
  let hook: AlertHook;
  let log: ReturnType<typeof createMemoryLogger>;
  beforeEach(async () => {
    hook = await startAlertHook();
    log = createMemoryLogger();
  });
  afterEach(() => hook.close());
  const sender = (o: { retries?: number; maxQueue?: number; timeoutMs?: number } = {}) =>
    new AlertSender({ url: hook.url, instance: 'hub-test', role: 'hub', log, now: () => Date.parse('2026-12-06T04:00:00Z'), minDelayMs: 1, ...o });

  it('posts one JSON body with text (Slack), content (Discord), the cause and the copy, and a Title header (ntfy)', async () => {
    const alerts = sender();
    alerts.send(':warning: the token is revoked', 'web_api_auth');
    await alerts.settled();
    expect(hook.posts).toHaveLength(1);
    expect(hook.posts[0]!.headers['content-type']).toBe('application/json');
    expect(hook.posts[0]!.headers.title).toBe('autohub: web_api_auth');
    expect(hook.posts[0]!.body).toEqual({
      text: ':warning: the token is revoked',
      content: ':warning: the token is revoked',
      cause: 'web_api_auth',
      instance: 'hub-test',
      role: 'hub',
      at: '2026-12-06T04:00:00.000Z',
    });
    expect(alerts.view).toMatchObject({ last_ok_at: '2026-12-06T04:00:00.000Z', last_failed_at: null, failed: 0 });
  });

  it('a 500 is retried, and the retry delivers it', async () => {
    hook.answers.push(500, 503);
    const alerts = sender();
    alerts.send('once', 'claims_fail_open');
    await alerts.settled();
    expect(hook.posts.map((p) => p.body.text)).toEqual(['once', 'once', 'once']);
    expect(alerts.view.last_ok_at).not.toBeNull();
    expect(alerts.view.last_failed_at).toBeNull();
  });

  it('gives up after the first attempt and `retries` more, and says when and why', async () => {
    hook.answers.push(500, 500, 500, 500, 500, 500);
    const alerts = sender({ retries: 2 });
    alerts.send('lost', 'web_api_auth');
    await alerts.settled();
    expect(hook.posts).toHaveLength(3);
    expect(alerts.view).toMatchObject({ last_ok_at: null, last_failed_at: '2026-12-06T04:00:00.000Z', last_failure: 'HTTP 500', failed: 1 });
    expect(log.lines.filter((l) => l.event === 'alert.failed')).toHaveLength(1);
  });

  it('a 404 (a wrong URL or a revoked webhook) is not retried', async () => {
    hook.answers.push(404);
    const alerts = sender();
    alerts.send('wrong', 'web_api_auth');
    await alerts.settled();
    expect(hook.posts).toHaveLength(1);
    expect(alerts.view.last_failure).toBe('HTTP 404');
  });

  it('an attempt that never answers is cut by its timeout, retried, and given up', async () => {
    hook.answers.push('hang', 'hang');
    const alerts = sender({ retries: 1, timeoutMs: 50 });
    alerts.send('slow', 'web_api_auth');
    await alerts.settled();
    expect(hook.posts).toHaveLength(2);
    expect(alerts.view.last_failure).toMatch(/TimeoutError/);
  });

  it('never logs the URL whole: its origin only, never its path or query', async () => {
    hook.answers.push(500, 500);
    const alerts = sender({ retries: 1 });
    alerts.send('a', 'web_api_auth');
    alerts.send('b', 'claims_fail_open');
    await alerts.settled();
    const logged = JSON.stringify(log.lines);
    expect(log.lines.some((l) => l.event === 'alert.failed' && l.origin === new URL(hook.url).origin)).toBe(true);
    expect(log.lines.some((l) => l.event === 'alert.sent')).toBe(true);
    expect(logged).not.toContain(HOOK_TOKEN.split('/')[2]);
    expect(logged).not.toContain('querysecret');
    expect(logged).not.toContain('/services/');
    expect(JSON.stringify(alerts.view)).not.toContain('/services/');
  });

  it('a full queue drops the newest alert and counts it, instead of growing', async () => {
    hook.answers.push('hang');
    const alerts = sender({ retries: 0, maxQueue: 2, timeoutMs: 60_000 });
    alerts.send('first (held by the hook)', 'a');
    await eventually(() => hook.held() === 1, 'the first alert to be in flight');
    alerts.send('second', 'b');
    alerts.send('third', 'c');
    alerts.send('fourth', 'd');
    expect(alerts.view.failed).toBe(1);
    expect(log.lines.filter((l) => l.event === 'alert.dropped')).toHaveLength(1);
    await hook.close();
    await alerts.settled();
  });

  it('cuts a long text to fit Discord, never splitting a character', () => {
    const long = `${'x'.repeat(ALERT_TEXT_MAX - 2)}😀😀😀`;
    const cut = alertText(long);
    expect(cut.length).toBeLessThanOrEqual(ALERT_TEXT_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
