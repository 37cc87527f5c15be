import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, STATUS_KEYS } from '../../lib/store/index.js';
import { commandForm, deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, SECRET, startCopy, type RunningCopy } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { openHome } from './app-home.js';

describe('the status page in Slack, from the shared store', () => {
  const store = new MemoryStore();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, store: () => store });
  const cloud = useCopy({ role: 'cloud', api, store: () => store });

  // One turn served by each copy.
  beforeAll(async () => {
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-s1', ts: '1700000300.000100' }), { signingSecret: SECRET });
    await deliver(cloud.eventsUrl, mentionEnvelope({ eventId: 'Ev-s2', ts: '1700000300.000200' }), { signingSecret: SECRET });
    await eventually(() => api.posts().length === 2, 'both replies');
    // A turn's line is written with its lease's finish, right after the post.
    await eventually(async () => (await store.range(STATUS_KEYS.turns, 10)).length === 2, 'both turn lines');
  });

  const status = async (copy: RunningCopy, trigger: string) => {
    const response = await deliver(copy.eventsUrl, commandForm({ text: 'status', triggerId: trigger }), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    return (await response.json()) as { response_type: string; blocks: unknown[] };
  };

  it('/autohub status answers ephemerally with the turns both copies served', async () => {
    const page = await status(hub, 'status-1');
    expect(page.response_type).toBe('ephemeral');
    const text = JSON.stringify(page.blocks);
    expect(text).toContain('Answering now: *hub* `hub-test`');
    expect(text).toContain('*Last 2 turn(s)*');
    expect(text).toContain('answered by *cloud* `cloud-test`');
    expect(text).toContain('answered by *hub* `hub-test`');
    expect(text).toMatch(/\*Cloud copy\* `cloud-test`: ok \(seen \d+s ago\)/);
    expect(text).toContain('1 turn(s) served by the cloud copy (failover)');
    expect(text).toMatch(/\*Cloud copy last served\*: \d+s ago/);
  });

  it('both copies show the same figures', async () => {
    const fromHub = JSON.stringify((await status(hub, 'status-2')).blocks).replace(/Answering now[^"]*/, '');
    const fromCloud = JSON.stringify((await status(cloud, 'status-3')).blocks).replace(/Answering now[^"]*/, '');
    expect(fromCloud.replace(/\d+s ago/g, 'Ns ago')).toBe(fromHub.replace(/\d+s ago/g, 'Ns ago'));
  });

  it('publishes the App Home tab when it is opened', async () => {
    const call = await openHome(hub, api, { user: 'U0PERSON', eventId: 'Ev-home', eventTs: '1700000300.000300' });
    expect(call.params.user_id).toBe('U0PERSON');
    const view = JSON.parse(call.params.view!) as { type: string; blocks: unknown[] };
    expect(view.type).toBe('home');
    expect(JSON.stringify(view.blocks)).toContain('autohub status');
  });
});

describe('the status page tells a dead copy from a live one within seconds', () => {
  const store = new MemoryStore();
  const api = useFakeWebApi();
  let hub: RunningCopy | undefined;
  let cloud: RunningCopy | undefined;
  afterAll(async () => {
    await cloud?.stop();
    await hub?.stop();
  });

  it("a hub stopped a moment ago is silent on the cloud copy's page (its peer watch), since its last heartbeat", async () => {
    hub = await startCopy({ role: 'hub', store, webApiUrl: api.url });
    cloud = await startCopy({ role: 'cloud', store, webApiUrl: api.url, env: { AUTOHUB_PEER_URL: hub.url, AUTOHUB_PEER_CHECK_MS: '100' } });
    await eventually(async () => Object.keys((await store.readHash(STATUS_KEYS.copies)) ?? {}).includes('hub-test'), "the hub's heartbeat");
    // Each heartbeat says how long until the next, at most: the default look, 2 min, and its jitter (x 1.1).
    expect(JSON.parse((await store.readHash(STATUS_KEYS.copies))!['hub-test']!).everyMs).toBe(132_000);
    const page = async (trigger: string) =>
      JSON.stringify(
        (
          (await (await deliver(cloud!.eventsUrl, commandForm({ text: 'status', triggerId: trigger }), { signingSecret: SECRET })).json()) as {
            blocks: unknown[];
          }
        ).blocks,
      );
    await eventually(() => cloud!.lines.some((l) => l.event === 'peer.state' && l.state === 'up'), 'the peer watch seeing the hub');
    expect(await page('alive')).toMatch(/\*Hub\* `hub-test`: ok \(seen \d+s ago\)/);
    await hub.stop();
    await eventually(() => cloud!.lines.some((l) => l.event === 'peer.state' && l.state === 'down'), 'the peer watch losing the hub');
    expect(await page('dead')).toMatch(
      /\*Hub\* `hub-test`: :warning: silent since \d\d:\d\d:\d\d UTC \(not answering its health route since \d\d:\d\d:\d\d UTC\); last said ok/,
    );
  });
});
