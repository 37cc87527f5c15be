/**
 * Once a copy has acked, Slack never sends the event again, so
 * every acked mention must end answered once or dead-lettered once. Real
 * Bolt, the real WebClient, a fake Web API that fails the way Slack does,
 * a real Redis behind the Upstash bridge.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventKey, MemoryStore } from '../../lib/store/index.js';
import { hangable } from '../../drill/hangable-store.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

// Retries after 100 ms, 400 ms, 1.6 s; three runs at most. The idle look is a minute away,
// so a retry that happens at all was scheduled, not stumbled on.
const ENV = {
  AUTOHUB_TURN_RETRY_DELAY_MS: '100',
  AUTOHUB_TURN_ATTEMPTS: '3',
  AUTOHUB_LEASE_MS: '3000',
  AUTOHUB_LEASE_RENEW_MS: '1000',
  AUTOHUB_REAPER_MS: '60000',
  AUTOHUB_OWNER: 'U0OWNER',
};

describe('every acked mention ends answered or dead-lettered', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx, env: ENV });
  let n = 0;

  const mention = async (eventId: string, channel = 'C0GENERAL') => {
    const ts = `1700001000.${String(++n).padStart(6, '0')}`;
    const ack = await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts, channel }), { signingSecret: SECRET });
    expect(ack.status).toBe(200);
    return ts;
  };
  const threadReads = (ts: string) => api.calls.filter((c) => c.method === 'conversations.replies' && c.params.ts === ts).length;
  const ownerDms = (eventId: string) => api.posts().filter((c) => c.params.channel === 'U0OWNER' && c.params.text?.includes(eventId));
  const isDone = async (eventId: string) => JSON.parse((await hub.store.read(eventKey('T0AUTOHUB', eventId))) ?? '{}').state;
  const dead = async (eventId: string) => (await hub.store.listDead(100))?.filter((d) => d.eventId === eventId) ?? [];

  // The demo turn streams: a reply's first write is chat.startStream.
  it.each([
    ['Slack answers HTTP 500 once: the retry reads the thread first (the post may have landed), then posts once', 'Ev-500', 500, 'internal', 1],
    ['Slack refuses with internal_error once: retried without reading the thread (a clear refusal posted nothing)', 'Ev-internal', 200, 'internal_error', 0],
  ])('%s', async (_, eventId, status, error, reads) => {
    api.script('chat.startStream', { status, body: { ok: false, error } });
    const ts = await mention(eventId);
    await eventually(async () => (await isDone(eventId)) === 'done', 'the turn to end', 10_000);
    expect(repliesTo(api, eventId)).toHaveLength(1);
    expect(threadReads(ts)).toBe(reads);
  });

  it('the connection resets after Slack stopped the stream: the retry finds the reply in the thread and posts nothing more', async () => {
    api.script('chat.stopStream', { status: 200, reset: 'after' });
    await mention('Ev-reset-after');
    await eventually(async () => (await isDone('Ev-reset-after')) === 'done', 'the turn to end', 10_000);
    expect(repliesTo(api, 'Ev-reset-after')).toHaveLength(1);
    expect(hub.lines.some((l) => l.event === 'turn.already_replied' && l.eventId === 'Ev-reset-after')).toBe(true);
  });

  it('the connection resets before Slack saw the post: one reply after the retry', async () => {
    api.script('chat.startStream', { status: 0, reset: 'before' });
    await mention('Ev-reset-before');
    await eventually(async () => (await isDone('Ev-reset-before')) === 'done', 'the turn to end', 10_000);
    expect(repliesTo(api, 'Ev-reset-before')).toHaveLength(1);
  });

  it('channel_not_found is dead-lettered at once: no reply, one dead letter, one DM to the owner', async () => {
    api.script('chat.startStream', { status: 200, body: { ok: false, error: 'channel_not_found' } });
    await mention('Ev-gone', 'C0GONE');
    await eventually(async () => (await dead('Ev-gone')).length === 1, 'the dead letter', 10_000);
    expect(await dead('Ev-gone')).toEqual([expect.objectContaining({ channel: 'C0GONE', reason: 'slack: channel_not_found', attempts: 1 })]);
    await eventually(() => ownerDms('Ev-gone').length === 1, 'the owner DM');
    expect(repliesTo(api, 'Ev-gone')).toHaveLength(0);
    expect(await isDone('Ev-gone')).toBe('dead');
  });

  it('a Web API that keeps failing: retried until the runs are spent, then exactly one dead letter and one DM', async () => {
    // Posts fail too, the owner's DM included: it is tried again once Slack is back.
    for (const method of ['chat.startStream', 'chat.postMessage']) api.fail(method, { status: 200, body: { ok: false, error: 'service_unavailable' } });
    try {
      await mention('Ev-outage');
      await eventually(async () => (await dead('Ev-outage')).length === 1, 'the dead letter', 15_000);
    } finally {
      for (const method of ['chat.startStream', 'chat.postMessage']) api.fail(method, null);
    }
    expect((await dead('Ev-outage'))[0]).toMatchObject({ attempts: 3, reason: 'slack: service_unavailable' });
    // The DM failed with the outage too; it is tried again (2 s later) once Slack is back.
    await eventually(() => ownerDms('Ev-outage').length === 1, 'the owner DM', 10_000);
    expect(repliesTo(api, 'Ev-outage')).toHaveLength(0);
  });

  it('a replayed dead letter gives exactly one reply, and a second replay does nothing', async () => {
    const key = eventKey('T0AUTOHUB', 'Ev-outage');
    const owner = { instance: 'replayer', role: 'hub' } as const;
    const sentAt = Date.now();
    const takeover = await hub.store.replayDead(key, owner, 3000);
    expect(takeover).toBeDefined();
    hub.runner.resume(takeover!, sentAt);
    await eventually(async () => (await isDone('Ev-outage')) === 'done', 'the replayed turn', 10_000);
    expect(repliesTo(api, 'Ev-outage')).toHaveLength(1);
    expect(await hub.store.replayDead(key, owner, 3000)).toBeUndefined();
    expect(await dead('Ev-outage')).toEqual([]);
  });

  it('a listener that throws a TypeError is a bug, not bad luck: dead-lettered at once', async () => {
    hub.app.event('reaction_added', async () => {
      throw new TypeError('cannot read the thing');
    });
    const body = {
      ...mentionEnvelope({ eventId: 'Ev-bug', ts: '1700001999.000001' }),
      event: { type: 'reaction_added', user: 'U0PERSON', reaction: 'eyes', item: { type: 'message', channel: 'C0GENERAL', ts: '1' }, event_ts: '1' },
    };
    expect((await deliver(hub.eventsUrl, body, { signingSecret: SECRET })).status).toBe(200);
    await eventually(async () => (await dead('Ev-bug')).length === 1, 'the dead letter', 10_000);
    expect((await dead('Ev-bug'))[0]!.reason).toBe('listener: TypeError: cannot read the thing');
  });
});

describe('a turn whose claim failed open (no lease) and whose reply then fails', () => {
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, store: () => store, env: ENV });
  const store = hangable(new MemoryStore());

  it('is claimed late, once the store answers again, and retried through the store: one reply', async () => {
    // The store does not answer the claim (it fails open and never lands); the reply's first write is
    // held until the store answers again, and then fails with HTTP 500.
    api.holdPosts(Number.POSITIVE_INFINITY);
    for (const method of ['chat.startStream', 'chat.postMessage']) api.script(method, { status: 500, body: { ok: false, error: 'internal' } });
    store.hung = true;
    let response: Response;
    try {
      response = await deliver(copy.eventsUrl, mentionEnvelope({ eventId: 'Ev-open-failed', ts: '1700009100.000001' }), { signingSecret: SECRET });
    } finally {
      store.hung = false;
    }
    expect(response.headers.get('x-autohub-claim')).toBe('fail-open');
    await eventually(() => api.held > 0, 'the first write held');
    api.releasePosts();
    await eventually(() => repliesTo(api, 'Ev-open-failed').length > 0, 'the retried reply', 15_000);
    await eventually(async () => (await store.pending()) === 0, 'the turn to end');
    expect(repliesTo(api, 'Ev-open-failed')).toHaveLength(1);
    expect(copy.lines.some((l) => l.event === 'turn.reclaimed' && l.eventId === 'Ev-open-failed')).toBe(true);
  });
});
