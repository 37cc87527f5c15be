/** Issue 24: `/autohub` and the App Home say only "ok" or "degraded" to anyone but the owners (no instance, version or store error). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebApi, type FakeWebApi } from '../../drill/sim/fake-web-api.js';
import { commandForm, deliver } from '../../drill/sim/slack-events.js';
import { CLOSED_URL } from '../support/fake-copy.js';
import { eventually, SECRET, startCopy, type RunningCopy } from '../support/copies.js';

const OWNER = 'U0OWNER';
const MEMBER = 'U0MEMBER';

describe('a copy whose store is unreachable, asked by a member and by the owner', () => {
  let api: FakeWebApi;
  let hub: RunningCopy;

  beforeAll(async () => {
    api = await startFakeWebApi();
    // An Upstash URL nobody listens on: the store's error names the address, which only the owner may read.
    hub = await startCopy({ role: 'hub', webApiUrl: api.url, upstash: { url: CLOSED_URL, token: 'upstash-token' }, env: { AUTOHUB_OWNER: OWNER } });
    expect(hub.health.report().body.status).toBe('degraded');
  });
  afterAll(async () => {
    await hub?.stop();
    await api?.close();
  });

  const ask = async (user: string, text: string, trigger: string) => {
    const form = new URLSearchParams(commandForm({ text, triggerId: trigger }));
    form.set('user_id', user);
    const response = await deliver(hub.eventsUrl, form.toString(), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    return (await response.json()) as { text: string; blocks?: unknown[] };
  };

  it.each(['', 'status'])('a member typing `/autohub %s` is told only "autohub: degraded"', async (text) => {
    const answer = await ask(MEMBER, text, `member-${text || 'plain'}`);
    expect(answer.text).toBe('autohub: degraded');
    expect(answer.blocks).toBeUndefined();
  });

  it("the owner is told which copy, its version and the store's error", async () => {
    const answer = await ask(OWNER, '', 'owner-plain');
    expect(answer.text).toContain('`hub-test`');
    expect(answer.text).toMatch(/\(v\d+\.\d+\.\d+\)/);
    expect(answer.text).toContain('unreachable (');
  });

  it('the App Home shows a member the state word only', async () => {
    const opened = {
      token: 'x',
      team_id: 'T0AUTOHUB',
      api_app_id: 'A0AUTOHUB',
      type: 'event_callback',
      event_id: 'Ev-home-member',
      event_time: 1700000300,
      event: { type: 'app_home_opened', user: MEMBER, channel: 'D0HOME', tab: 'home', event_ts: '1700000300.000400' },
    };
    expect((await deliver(hub.eventsUrl, opened, { signingSecret: SECRET })).status).toBe(200);
    await eventually(() => api.calls.some((c) => c.method === 'views.publish'), 'the home tab', 10_000);
    const view = api.calls.find((c) => c.method === 'views.publish')!.params.view!;
    expect(view).toContain('autohub: degraded');
    expect(view).not.toContain('hub-test');
  });
});
