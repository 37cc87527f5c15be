/**
 * A copy's drain of the edge's inbox, on real copies over a real redis-server behind the Upstash REST bridge:
 * a kept slash command is claimed under the live path's key (before: a SET NX of its own, so a command a copy had
 * also taken live ran twice); one whose response_url refuses is answered by DM, naming the command (before:
 * nothing reached the person); a delivery kept past Slack's 5-minute signature window and the response_url's 30
 * minutes still runs; a kept interaction past its response_url tells the owner once; the owner hears of an outage
 * once, however many copies drain it, and of the next outage again (before: a mark per oldest entry, told by each
 * copy whose drain saw a different oldest entry, and an all-answered note only from the copy that told the count).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandForm, feedbackClickForm, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { createEdgeKeeper, createInboxStore, outageEndText, outageStartText, parseInboxSettings } from '../../lib/inbox/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { noticeStatusKey } from '../../lib/store/index.js';
import { eventually, quiescent, SECRET, type RunningCopy } from '../support/copies.js';
import { useCopiesPerTest, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { startResponseUrl } from '../support/response-url.js';

const MINUTE = 60_000;

/** What every drain of this copy did (its `inbox.drained` lines): the test's own, or a start-up or look drain that raced it. */
function drained(copy: RunningCopy): { ran: number; alreadyRun: number } {
  const lines = copy.lines.filter((l) => l.event === 'inbox.drained') as unknown as Array<{ ran: number; alreadyRun: number }>;
  return { ran: lines.reduce((n, l) => n + l.ran, 0), alreadyRun: lines.reduce((n, l) => n + l.alreadyRun, 0) };
}

describe('draining the edge inbox on the copies', () => {
  const redis = useRedisBridge();
  const api = useFakeWebApi();
  const copies = useCopiesPerTest({ api, redis });
  let hook: Awaited<ReturnType<typeof startResponseUrl>>;
  beforeAll(async () => {
    hook = await startResponseUrl();
  });
  afterAll(() => hook?.server.close());

  const keeper = () => {
    const settings = parseInboxSettings({ UPSTASH_REDIS_REST_URL: redis.bridge.url, UPSTASH_REDIS_REST_TOKEN: redis.bridge.token })!;
    return createEdgeKeeper({ settings, signingSecret: SECRET });
  };
  /** What the edge does when no copy answers: kept as it arrived `arrivedAt`, signed by Slack then. */
  const keep = async (body: string, contentType: string, arrivedAt = Date.now()) => {
    const request = new Request('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: { 'content-type': contentType, ...(await signedHeaders(SECRET, body, arrivedAt)) },
      body,
    });
    const kept = await keeper().keep(request, new TextEncoder().encode(body), arrivedAt, 2_000);
    expect(kept.kind).toBe('kept');
  };
  const command = (trigger: string, text = '') => {
    const form = new URLSearchParams(commandForm({ triggerId: trigger, text }));
    form.set('response_url', hook.url);
    return form.toString();
  };
  const form = 'application/x-www-form-urlencoded';
  const inbox = () => createInboxStore({ url: redis.bridge.url, token: redis.bridge.token });
  const ownerTexts = (owner: string) =>
    api
      .posts()
      .filter((c) => c.params.channel === owner)
      .map((c) => c.params.text ?? '');

  it('a kept command a copy also took live (its trigger_id claimed) runs once', async () => {
    hook.posts.length = 0;
    hook.status = 200;
    const copy = await copies.start('hub');
    const body = command('trig-live-and-kept');
    // Live: the copy answered it (after the edge had given up on its leg), then the edge kept it too.
    const live = await fetch(copy.eventsUrl, { method: 'POST', headers: { 'content-type': form, ...(await signedHeaders(SECRET, body, Date.now())) }, body });
    expect(live.status).toBe(200);
    await keep(body, form);
    await copy.inbox!.drain('test');
    // This drain, or the copy's own start-up or look drain racing it (it then finds the inbox empty): counted over all.
    expect(drained(copy)).toEqual({ ran: 0, alreadyRun: 1 });
    expect(hook.posts).toHaveLength(0);
    expect((await inbox().stats()).size).toBe(0);
  });

  it('a kept mention that also reached a copy live, and one the catch-up sweep also found, each run once', async () => {
    const copy = await copies.start('hub');
    const liveTs = '1700000500.000500';
    const sweptTs = '1700000600.000600';
    const live = JSON.stringify(mentionEnvelope({ eventId: 'Ev-live-and-kept', ts: liveTs }));
    const reached = await fetch(copy.eventsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await signedHeaders(SECRET, live, Date.now())) },
      body: live,
    });
    expect(reached.status).toBe(200);
    await keep(live, 'application/json');
    // The sweep reads the message back from history under an id of its own (lib/catchup): the same message's key.
    expect(await copy.runner.inject({ ...mentionEnvelope({ eventId: `Ev-catchup-C0GENERAL-${sweptTs}`, ts: sweptTs }), autohub_catchup: true })).toBe(
      'claimed',
    );
    await keep(JSON.stringify(mentionEnvelope({ eventId: 'Ev-swept-and-kept', ts: sweptTs })), 'application/json');
    await copy.inbox!.drain('test');
    expect(drained(copy)).toEqual({ ran: 0, alreadyRun: 2 });
    await eventually(() => api.posts().filter((c) => c.params.thread_ts === liveTs || c.params.thread_ts === sweptTs).length >= 2, 'both answered');
    await quiescent([copy]);
    expect(api.posts().filter((c) => c.params.thread_ts === liveTs)).toHaveLength(1);
    expect(api.posts().filter((c) => c.params.thread_ts === sweptTs)).toHaveLength(1);
  });

  it('a kept command whose response_url refuses it is answered by a DM naming the command', async () => {
    hook.posts.length = 0;
    hook.status = 404;
    const copy = await copies.start('hub');
    await keep(command('trig-refused', 'where'), form);
    // This drain, or the copy's own start-up or look drain racing it, runs the command: counted by what it did.
    await copy.inbox!.drain('test');
    await eventually(async () => (await inbox().stats()).size === 0, 'the inbox drained');
    const dms = () => ownerTexts('U0PERSON').filter((t) => t.includes('(late, for your /autohub where)'));
    await eventually(() => dms().length > 0, 'the DM naming the command');
    expect(hook.posts).toHaveLength(1);
    expect(dms()).toHaveLength(1);
  });

  it('a command kept 40 minutes ago (signed then, past the response_url) runs and is answered by DM, never at the response_url', async () => {
    hook.posts.length = 0;
    hook.status = 200;
    const copy = await copies.start('hub');
    await keep(command('trig-old', 'old'), form, Date.now() - 40 * MINUTE);
    // This drain, or the copy's own start-up or look drain racing it, runs the command: once, and none drops it.
    const drained = await copy.inbox!.drain('test');
    expect(drained.dropped).toBe(0);
    await eventually(async () => (await inbox().stats()).size === 0, 'the inbox drained');
    expect(hook.posts).toHaveLength(0);
    expect(ownerTexts('U0PERSON').filter((t) => t.includes('(late, for your /autohub old)'))).toHaveLength(1);
  });

  it('two interactions kept past their response_url: both run, the owner is told once that all are taken up', async () => {
    // Both kept before the copy starts, as in an outage: a copy up while they are kept could drain the first alone
    // (a look between the two) and tell two outages of one delivery each.
    for (const trigger of ['trig-click-1', 'trig-click-2']) {
      await keep(feedbackClickForm({ triggerId: trigger, messageTs: '1700000000.000100', button: 'positive' }), form, Date.now() - 31 * MINUTE);
    }
    const copy = await copies.start('hub', { env: { AUTOHUB_OWNER: 'U0OWNERA' } });
    // This drain, or the copy's own start-up or look drain racing it, runs both.
    await copy.inbox!.drain('test');
    await eventually(async () => (await inbox().stats()).size === 0, 'the inbox drained');
    await eventually(() => ownerTexts('U0OWNERA').some((t) => /^All 2 deliveries/.test(t)), 'the owner told all are taken up');
    expect(copy.lines.filter((l) => l.event === 'inbox.found' && l.kind === 'interactive')).toHaveLength(2);
    expect(ownerTexts('U0OWNERA').filter((t) => /^All/.test(t))).toEqual([outageEndText(2)]);
  });

  it('two copies draining one outage at once tell the owner once, each note; the next outage is told again', async () => {
    const env = { AUTOHUB_OWNER: 'U0OWNERB' };
    for (let i = 0; i < 6; i++) await keep(JSON.stringify(mentionEnvelope({ eventId: `Ev-outage-${i}`, ts: `1700000300.00030${i}` })), 'application/json');
    // Both start (each drains at start), and both drain again, as the peer's return would have them.
    const [hub, cloud] = await Promise.all([copies.start('hub', { env }), copies.start('cloud', { env })]);
    await Promise.all([hub.inbox!.drain('peer back'), cloud.inbox!.drain('peer back')]);
    await eventually(async () => (await inbox().stats()).size === 0, 'the inbox drained');
    await eventually(() => ownerTexts('U0OWNERB').some((t) => /^All \d+ deliveries/.test(t)), 'the owner told all are answered');
    expect(ownerTexts('U0OWNERB').filter((t) => /the edge kept \d+ deliveries/.test(t))).toEqual([outageStartText(6)]);
    expect(ownerTexts('U0OWNERB').filter((t) => /^All/.test(t))).toEqual([outageEndText(6)]);
    // And on the status page's owner notices, for two days.
    expect(JSON.parse(String(await hub.store.read(noticeStatusKey('edge_inbox'))))).toMatchObject({
      cause: 'edge_inbox',
      count: 6,
      detail: 'all 6 kept deliveries taken up',
    });
    // The next outage: told again, with its own count.
    for (let i = 0; i < 2; i++) await keep(JSON.stringify(mentionEnvelope({ eventId: `Ev-outage-next-${i}`, ts: `1700000400.00040${i}` })), 'application/json');
    await cloud.inbox!.drain('peer back');
    expect(ownerTexts('U0OWNERB').filter((t) => /the edge kept 2 deliveries/.test(t))).toHaveLength(1);
    expect(ownerTexts('U0OWNERB').filter((t) => t === outageEndText(2))).toHaveLength(1);
  });
});
