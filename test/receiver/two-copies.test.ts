import { describe, expect, it } from 'vitest';
import { commandForm, deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, HEALTH_AUTH, quiescent, SECRET } from '../support/copies.js';
import { repliesTo as repliesOf } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('a hub and a cloud copy sharing one Redis', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  // Short leases, so every lifecycle (a late-landing claim's included) ends within a couple of seconds.
  const env = { AUTOHUB_LEASE_MS: '1000', AUTOHUB_LEASE_RENEW_MS: '300', AUTOHUB_REAPER_MS: '200' };
  const hub = useCopy({ role: 'hub', api, redis: fx, env });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env });
  let n = 0;
  const ts = () => `${Math.floor(Date.now() / 1000)}.${String(++n).padStart(6, '0')}`;

  const repliesTo = (eventId: string) => repliesOf(api, eventId);
  /** Delivered to the hub with Redis paused (SIGSTOP), resumed once the hub has answered. */
  async function deliverWhilePaused(body: Record<string, unknown>): Promise<Response> {
    fx.redis.pause();
    try {
      return await deliver(hub.eventsUrl, body, { signingSecret: SECRET });
    } finally {
      fx.redis.resume();
    }
  }

  it('an event delivered to the hub and then, as retry 1, to the cloud copy gets one reply', async () => {
    const body = mentionEnvelope({ eventId: 'Ev-two-copies', ts: ts() });
    const first = await deliver(hub.eventsUrl, body, { signingSecret: SECRET });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-autohub-claim')).toBe('claimed');
    expect(first.headers.get('x-autohub-role')).toBe('hub');
    expect(first.headers.get('x-autohub-instance')).toBe('hub-test');

    const retry = await deliver(cloud.eventsUrl, body, { signingSecret: SECRET, retryNum: 1 });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-autohub-claim')).toBe('duplicate');

    await eventually(() => repliesTo('Ev-two-copies').length > 0, 'the reply');
    await quiescent([hub, cloud]);
    const replies = repliesTo('Ev-two-copies');
    expect(replies).toHaveLength(1);
    expect(replies[0]!.params.text).toMatch(/the hub \(hub-test\)/);
    expect(replies[0]!.params.thread_ts).toBe(body.event && (body.event as { ts: string }).ts);
  });

  it('a retry of a claimed delivery to the same copy is acked and not run again', async () => {
    const body = mentionEnvelope({ eventId: 'Ev-same-copy', ts: ts() });
    await deliver(cloud.eventsUrl, body, { signingSecret: SECRET });
    const retry = await deliver(cloud.eventsUrl, body, { signingSecret: SECRET, retryNum: 2, retryReason: 'http_error' });
    expect(retry.headers.get('x-autohub-claim')).toBe('duplicate');
    await eventually(() => repliesTo('Ev-same-copy').length > 0, 'the reply');
    await quiescent([hub, cloud]);
    expect(repliesTo('Ev-same-copy')).toHaveLength(1);
  });

  it('the same message redelivered under a new event_id, with no retry headers, gets one reply', async () => {
    const messageTs = ts();
    const a = await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-msg-a', ts: messageTs }), { signingSecret: SECRET });
    const b = await deliver(cloud.eventsUrl, mentionEnvelope({ eventId: 'Ev-msg-b', ts: messageTs }), { signingSecret: SECRET });
    expect(a.headers.get('x-autohub-claim')).toBe('claimed');
    expect(b.headers.get('x-autohub-claim')).toBe('duplicate');
    await eventually(() => repliesTo('Ev-msg-a').length > 0, 'the reply');
    await quiescent([hub, cloud]);
    expect(repliesTo('Ev-msg-a')).toHaveLength(1);
    expect(repliesTo('Ev-msg-b')).toHaveLength(0);
  });

  it('a reply in a thread goes to that thread', async () => {
    const body = mentionEnvelope({ eventId: 'Ev-thread', ts: ts(), threadTs: '1700000000.000100' });
    await deliver(hub.eventsUrl, body, { signingSecret: SECRET });
    await eventually(() => repliesTo('Ev-thread').length > 0, 'the reply');
    expect(repliesTo('Ev-thread')[0]!.params.thread_ts).toBe('1700000000.000100');
  });

  it("a direct message gets a reply; the bot's own message does not", async () => {
    const dm = mentionEnvelope({ eventId: 'Ev-dm', ts: ts(), type: 'message', channelType: 'im', channel: 'D0DM' });
    await deliver(hub.eventsUrl, dm, { signingSecret: SECRET });
    const own = mentionEnvelope({ eventId: 'Ev-own', ts: ts(), type: 'message', channelType: 'im', channel: 'D0DM' });
    (own.event as Record<string, unknown>).bot_id = 'BAUTOHUB';
    await deliver(hub.eventsUrl, own, { signingSecret: SECRET });
    await eventually(() => repliesTo('Ev-dm').length > 0, 'the DM reply');
    await quiescent([hub, cloud]);
    expect(repliesTo('Ev-own')).toHaveLength(0);
  });

  it('a slash command answers once, from whichever copy claims its trigger first', async () => {
    const form = commandForm({ triggerId: 'trigger-1' });
    const first = await deliver(hub.eventsUrl, form, { signingSecret: SECRET });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ response_type: 'ephemeral', text: expect.stringMatching(/\*hub\* copy `hub-test`/) });
    const second = await deliver(cloud.eventsUrl, form, { signingSecret: SECRET });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-autohub-claim')).toBe('duplicate');
    expect(await second.text()).toBe('');
  });

  it('with Redis paused, the copy acks without the store (fail-open, answered while Redis is still paused) and the reply is posted once', async () => {
    const body = mentionEnvelope({ eventId: 'Ev-paused', ts: ts() });
    // The ack arrives while Redis is still paused: the claim gave up on it (its deadline, not Redis, ended the wait).
    const response = await deliverWhilePaused(body);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-claim')).toBe('fail-open');
    await eventually(() => repliesTo('Ev-paused').length > 0, 'the reply');
    await quiescent([hub, cloud]);
    expect(repliesTo('Ev-paused')).toHaveLength(1);
    expect(hub.lines.some((l) => l.event === 'claim.fail_open')).toBe(true);
  });

  it('a failed-open turn whose reply fails is not dropped: the claim that timed out lands when Redis is back, its lease lapses and is taken over; one reply', async () => {
    const body = mentionEnvelope({ eventId: 'Ev-paused-failed', ts: ts() });
    // The first write of the reply fails (HTTP 500, ambiguous): the turn has no lease to hand back.
    for (const method of ['chat.startStream', 'chat.postMessage']) api.script(method, { status: 500, body: { ok: false, error: 'internal' } });
    const response = await deliverWhilePaused(body);
    expect(response.headers.get('x-autohub-claim')).toBe('fail-open');
    await eventually(() => repliesTo('Ev-paused-failed').length > 0, 'the retried reply', 15_000);
    await quiescent([hub, cloud]);
    expect(repliesTo('Ev-paused-failed')).toHaveLength(1);
    expect([...hub.lines, ...cloud.lines].some((l) => l.event === 'lease.takeover' && l.eventId === 'Ev-paused-failed')).toBe(true);
  });

  it('health without the token says only its status', async () => {
    const response = await fetch(cloud.healthUrl);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-autohub-instance')).toBeNull();
    const wrong = await fetch(cloud.healthUrl, { headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect(await wrong.json()).toEqual({ status: 'ok' });
  });

  it('health with the token reports the role, the instance and a reachable store', async () => {
    const response = await fetch(cloud.healthUrl, { headers: HEALTH_AUTH });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'ok',
      role: 'cloud',
      instance: 'cloud-test',
      store: { kind: 'upstash', ok: true },
    });
  });
});
