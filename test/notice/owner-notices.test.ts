/**
 * Issues 21 and 24: the owner hears, by DM once per cause per hour and on the
 * status page, of the faults only the owner can fix. Real copies, real Bolt,
 * the real WebClient against the fake Web API; a real Upstash bridge where
 * the store must fail.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { FakeWebApi } from '../../drill/sim/fake-web-api.js';
import { commandForm, deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { NOTICE_EVERY_MS } from '../../lib/notice/index.js';
import { MemoryStore, noticeStatusKey } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, HEALTH_AUTH, repliesTo, SECRET, type RunningCopy } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

const OWNER = 'U0OWNER';

/** The envelope as https://api.slack.com/events/app_rate_limited shows it. */
const rateLimited = (minute = 1518467820) => ({
  token: 'legacy',
  type: 'app_rate_limited',
  team_id: 'T0AUTOHUB',
  minute_rate_limited: minute,
  api_app_id: 'A0AUTOHUB',
});

const dmsTo = (api: FakeWebApi, owner: string) => api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.channel === owner && c.status === 200);

describe('app_rate_limited: answered 200, told to the owner once per hour it happens, on the status page', () => {
  // One clock for the copies and their store, moved forward by the tests.
  let offset = 0;
  const now = () => Date.now() + offset;
  const store = new MemoryStore({ now });
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, store: () => store, now, env: { AUTOHUB_OWNER: OWNER } });
  const cloud = useCopy({ role: 'cloud', api, store: () => store, now, env: { AUTOHUB_OWNER: OWNER } });

  const send = async (copy: RunningCopy) => {
    const response = await deliver(copy.eventsUrl, rateLimited(), { signingSecret: SECRET, now: now() });
    expect(response.status).toBe(200);
    await copy.notices.settled();
  };

  it('the first envelope DMs the owner, and further ones within the hour, at either copy, do not', async () => {
    await send(hub);
    expect(dmsTo(api, OWNER)).toHaveLength(1);
    expect(dmsTo(api, OWNER)[0]!.params.text).toContain('Slack is dropping events (app_rate_limited)');
    expect(dmsTo(api, OWNER)[0]!.params.text).toContain('workspace T0AUTOHUB, since 2018-02-12 20:37 UTC');
    offset += 10 * 60_000;
    await send(hub);
    await send(cloud);
    expect(dmsTo(api, OWNER)).toHaveLength(1);
    expect(hub.lines.filter((l) => l.event === 'slack.app_rate_limited')).toHaveLength(2);
  });

  it('the status page shows the notice to the owner', async () => {
    const form = new URLSearchParams(commandForm({ text: 'status', triggerId: 'notice-status' }));
    form.set('user_id', OWNER);
    const page = (await (await deliver(hub.eventsUrl, form.toString(), { signingSecret: SECRET, now: now() })).json()) as { blocks: unknown[] };
    const text = JSON.stringify(page.blocks);
    expect(text).toContain('*Owner notices* (last 24 hours)');
    expect(text).toContain('Slack is dropping events (app_rate_limited)*: workspace T0AUTOHUB');
  });

  it('an hour later, still happening, the owner is told again, with the count since', async () => {
    offset += NOTICE_EVERY_MS;
    await send(cloud);
    expect(dmsTo(api, OWNER)).toHaveLength(2);
    // Each copy counts what it saw since its own last decision: the cloud found the hub had told at +10 min, and saw this one since.
    expect(dmsTo(api, OWNER)[1]!.params.text).toContain('(1 time(s) since the last notice, an hour or more ago)');
    expect(JSON.parse((await store.read(noticeStatusKey('app_rate_limited')))!)).toMatchObject({ cause: 'app_rate_limited', count: 1, instance: 'cloud-test' });
  });
});

describe('Web API auth failures: the owner is told once per hour', () => {
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, store: () => new MemoryStore(), env: { AUTOHUB_OWNER: OWNER } });
  afterEach(() => api.fail('auth.test', null));

  it.each(['invalid_auth', 'token_revoked'])('%s in a Web API answer DMs the owner once, however many calls see it', async (error) => {
    const before = dmsTo(api, OWNER).length;
    api.fail('auth.test', { status: 200, body: { ok: false, error } });
    for (let i = 0; i < 3; i++) await expect(hub.client.auth.test()).rejects.toThrow(error);
    await hub.notices.settled();
    const dms = dmsTo(api, OWNER).slice(before);
    // Once per cause per hour: the second error code is the same cause, told already.
    expect(dms).toHaveLength(error === 'invalid_auth' ? 1 : 0);
    if (dms[0]) expect(dms[0].params.text).toContain('Web API refuses the bot token*: auth.test: invalid_auth');
  });

  it('an error that is not about the token tells nobody', async () => {
    const notices = hub.lines.filter((l) => l.event === 'owner.notice').length;
    api.fail('auth.test', { status: 200, body: { ok: false, error: 'not_in_channel' } });
    await expect(hub.client.auth.test()).rejects.toThrow('not_in_channel');
    await hub.notices.settled();
    expect(hub.lines.filter((l) => l.event === 'owner.notice')).toHaveLength(notices);
  });
});

describe('claims failing open: the owner is told, with the count of turns that failed open', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx, env: { AUTOHUB_OWNER: OWNER } });
  // Before the copy stops (hooks after run last first), so it stops on a store that answers.
  afterAll(() => {
    fx.bridge.mode = 'normal';
  });

  it('two mentions whose claims fail open are both answered, and the owner gets one DM saying claims fail open', async () => {
    // The store answers every command with an error, as Upstash does past the plan's allowance.
    fx.bridge.mode = 'error-500';
    for (const [eventId, ts] of [
      ['Ev-open-1', '1700004000.000001'],
      ['Ev-open-2', '1700004000.000002'],
    ] as const) {
      const response = await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts }), { signingSecret: SECRET });
      expect(response.headers.get('x-autohub-claim')).toBe('fail-open');
      await eventually(() => repliesTo(api, eventId).length === 1, `the reply to ${eventId}`);
    }
    await hub.notices.settled();
    const dms = dmsTo(api, OWNER);
    expect(dms).toHaveLength(1);
    expect(dms[0]!.params.text).toContain('Claims failing open');
    expect(dms[0]!.params.text).toContain('(1 turn(s) failed open so far)');
    expect(hub.lines.filter((l) => l.event === 'owner.notice' && l.cause === 'claims_fail_open')).toHaveLength(1);
    // The running count is in the health body (with the token), whatever the notices said.
    expect((await (await fetch(hub.healthUrl, { headers: HEALTH_AUTH })).json()).claims_failed_open).toBe(2);
  });
});
