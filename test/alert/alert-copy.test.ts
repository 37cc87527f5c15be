/**
 * AUTOHUB_ALERT_URL in a real copy: the owner hears of a revoked bot token
 * at the alert URL though the DM fails with that very error; a dead letter
 * goes there too; a hanging alert URL delays no turn; health and the status
 * page say where alerts go and when one last failed; a bad URL stops
 * start-up with one line naming the setting, never showing the URL's token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { parseAppConfig } from '../../lib/config/index.js';
import { ConfigError } from '../../lib/errors/index.js';
import { alertLine } from '../../lib/status/index.js';
import { eventually, HEALTH_AUTH, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { HOOK_TOKEN, startAlertHook, type AlertHook } from './alert-hook.js';

const OWNER = 'U0OWNER1';

describe('a copy with AUTOHUB_ALERT_URL', () => {
  let hook: AlertHook;
  beforeAll(async () => {
    hook = await startAlertHook();
  });
  afterAll(() => hook.close());
  const api = useFakeWebApi();
  const hub = useCopy({
    role: 'hub',
    api,
    env: {
      AUTOHUB_OWNER: OWNER,
      get AUTOHUB_ALERT_URL() {
        return hook.url;
      },
    } as Record<string, string>,
  });

  it('tells the owner of a revoked token at the alert URL, though the DM fails with that very error', async () => {
    api.fail('chat.postMessage', { status: 200, body: { ok: false, error: 'token_revoked' } });
    try {
      hub.notices.raise('web_api_auth', 'chat.postMessage answered token_revoked');
      await eventually(() => hub.lines.some((l) => l.event === 'owner.notice_dm_failed'), 'the DM to fail');
      await hub.alert!.settled();
    } finally {
      api.fail('chat.postMessage', null);
    }
    const told = hook.posts.filter((p) => p.body.cause === 'web_api_auth');
    expect(told).toHaveLength(1);
    expect(told[0]!.body).toMatchObject({ instance: 'hub-test', role: 'hub' });
    expect(String(told[0]!.body.text)).toMatch(/Web API refuses the bot token/);
  });

  it('a hanging alert URL delays no turn: the mention is answered while the alert is still held', async () => {
    hook.answers.push('hang');
    hub.notices.raise('claims_fail_open', 'a test');
    await eventually(() => hook.held() === 1, 'the alert to be held by the hook');
    const ack = await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-alert-hang', ts: '1700000500.000100', text: '<@UAUTOHUB> hi' }), {
      signingSecret: SECRET,
    });
    expect(ack.status).toBe(200);
    await eventually(
      () => api.calls.some((c) => c.params.thread_ts === '1700000500.000100' && /^chat\.(postMessage|startStream)$/.test(c.method)),
      'the answer',
    );
    expect(hook.held()).toBe(1);
    hook.release();
    await hub.alert!.settled();
  });

  it('health and the status page say where alerts go (its origin alone) and when one last failed', async () => {
    hook.answers.push(404);
    hub.notices.raise('store_allowance', 'a test');
    await eventually(() => hub.alert!.view.failed > 0, 'the alert to be given up');
    const body = (await (await fetch(hub.healthUrl, { headers: HEALTH_AUTH })).json()) as { alert?: Record<string, unknown> };
    expect(body.alert).toMatchObject({ origin: new URL(hook.url).origin, last_failure: 'HTTP 404' });
    expect(typeof body.alert?.last_failed_at).toBe('string');
    expect(JSON.stringify(body)).not.toContain('/services/');
    const line = alertLine(body.alert as never, Date.now());
    expect(line).toMatch(/^\*Alert URL\*: http:\/\/127\.0\.0\.1:\d+, last delivered \S+ ago; :warning: last failed \d+s ago \(HTTP 404\)/);
    expect(JSON.stringify(hub.lines)).not.toContain(HOOK_TOKEN.split('/')[2]);
  });
});

describe('AUTOHUB_ALERT_URL at start-up', () => {
  const base = { AUTOHUB_ROLE: 'hub', SLACK_SIGNING_SECRET: 'secret', SLACK_BOT_TOKEN: 'xoxb-1-2-abc' };
  it.each([
    ['hooks.slack.com/services/T0/B0/sekrit', /^AUTOHUB_ALERT_URL is invalid: expected an https:\/\/ .*received "37 characters, not a URL"$/],
    ['ftp://example.com/sekrit', /^AUTOHUB_ALERT_URL is invalid: .*received "a ftp: URL"$/],
    ['https://me:sekrit@example.com/hook', /^AUTOHUB_ALERT_URL is invalid: .*with no user or password in it, received "https:\/\/example\.com"$/],
  ])('%s stops start-up with one line naming the setting, the token not shown', (url, message) => {
    const run = () => parseAppConfig({ ...base, AUTOHUB_ALERT_URL: url });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(message);
    expect(run).not.toThrow(/sekrit/);
  });

  it('a good URL is taken as given; unset, no alert URL', () => {
    expect(parseAppConfig({ ...base, AUTOHUB_ALERT_URL: 'https://ntfy.sh/my-topic' }).alertUrl).toBe('https://ntfy.sh/my-topic');
    expect(parseAppConfig(base).alertUrl).toBeNull();
  });
});
