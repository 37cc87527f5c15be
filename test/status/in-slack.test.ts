import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, STATUS_KEYS } from '../../lib/store/index.js';
import { commandForm, deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, SECRET, type RunningCopy } from '../support/copies.js';
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
