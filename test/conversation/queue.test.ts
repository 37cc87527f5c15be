/**
 * One turn at a time per conversation, on real copies: a hub and a cloud copy
 * sharing one Redis (through the Upstash bridge), real Bolt, the real
 * WebClient against the fake Web API. A follow-up written in a thread while
 * the thread's turn runs on the other copy waits for it, then runs knowing
 * its answer (ctx.history()); another thread never waits.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { SKIPPED_NOTE } from '../../lib/turn/handle.js';
import { STORE_LIMITS } from '../../lib/store/index.js';
import type { TakeTurn } from '../../lib/bot/index.js';
import { eventually, quiescent, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

/** Turns whose text starts with "hold" wait until the test lets them go; the others answer with what they saw. */
interface Hold {
  promise: Promise<void>;
  resolve(): void;
}
const held = new Map<string, Hold>();
const running = new Set<string>();
function holdOf(text: string): Hold {
  let hold = held.get(text);
  if (!hold) {
    let resolve = () => {};
    const promise = new Promise<void>((r) => (resolve = r));
    held.set(text, (hold = { promise, resolve }));
  }
  return hold;
}
const turn: TakeTurn = async (request, ctx) => {
  running.add(request.text);
  if (request.text.startsWith('hold')) {
    await holdOf(request.text).promise;
    return `the answer to ${request.text}`;
  }
  const history = await ctx.history();
  return `saw: ${history.map((m) => `${m.role}:${m.text}`).join(' | ')}`;
};

describe('one turn at a time per conversation, across the copies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const env = { AUTOHUB_LEASE_MS: '2000', AUTOHUB_LEASE_RENEW_MS: '500', AUTOHUB_REAPER_MS: '500' };
  const hub = useCopy({ role: 'hub', api, redis: fx, env, turn });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env, turn });
  let n = 0;
  // People wrote a minute ago: every answer the fake posts now (its ts is now) comes after the follow-up, as in Slack.
  const ts = () => `${Math.floor(Date.now() / 1000) - 60}.${String(++n).padStart(6, '0')}`;
  const text = (eventId: string) => repliesTo(api, eventId)[0]?.params.text;

  it('a follow-up written while the thread’s turn runs on the other copy waits for it, and sees its answer', async () => {
    const thread = ts();
    const first = mentionEnvelope({ eventId: 'Ev-q-first', ts: thread, text: '<@UAUTOHUB> hold: first question' });
    // The person's messages, as Slack holds them (conversations.replies reads them back).
    api.addMessage('C0GENERAL', { ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> hold: first question' });
    await deliver(hub.eventsUrl, first, { signingSecret: SECRET });
    await eventually(() => running.has('hold: first question'), 'the first turn to run on the hub');

    const followTs = ts();
    const follow = mentionEnvelope({ eventId: 'Ev-q-follow', ts: followTs, threadTs: thread, text: '<@UAUTOHUB> and a follow-up' });
    api.addMessage('C0GENERAL', { ts: followTs, thread_ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> and a follow-up' });
    const acked = await deliver(cloud.eventsUrl, follow, { signingSecret: SECRET });
    expect(acked.status).toBe(200);
    // The cloud copy says the follow-up waits (event-based: its log line), and its turn has not run.
    await eventually(() => cloud.lines.some((l) => l.event === 'conversation.waiting' && l.eventId === 'Ev-q-follow'), 'the follow-up to wait');
    expect(running.has('and a follow-up')).toBe(false);
    expect(repliesTo(api, 'Ev-q-follow')).toHaveLength(0);

    holdOf('hold: first question').resolve();
    await eventually(() => repliesTo(api, 'Ev-q-follow').length > 0, 'the follow-up answered', 10_000);
    await quiescent([hub, cloud]);
    expect(repliesTo(api, 'Ev-q-first')).toHaveLength(1);
    expect(repliesTo(api, 'Ev-q-follow')).toHaveLength(1);
    // In order: the first answer is posted before the follow-up's, and the follow-up knew it.
    const order = api.posts().map((p) => JSON.parse(p.params.metadata ?? '{}').event_payload?.event_id);
    expect(order.indexOf('Ev-q-first')).toBeLessThan(order.indexOf('Ev-q-follow'));
    expect(text('Ev-q-follow')).toBe('saw: user:hold: first question | assistant:the answer to hold: first question');
    expect(cloud.lines.some((l) => l.event === 'conversation.waited' && l.eventId === 'Ev-q-follow')).toBe(true);
  });

  it('conversations do not wait for each other: a mention in another thread is answered while the first still runs', async () => {
    const thread = ts();
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-q-busy', ts: thread, text: '<@UAUTOHUB> hold: busy thread' }), { signingSecret: SECRET });
    await eventually(() => running.has('hold: busy thread'), 'the busy turn to run');
    await deliver(cloud.eventsUrl, mentionEnvelope({ eventId: 'Ev-q-other', ts: ts(), text: '<@UAUTOHUB> elsewhere' }), { signingSecret: SECRET });
    await eventually(() => repliesTo(api, 'Ev-q-other').length > 0, 'the other thread answered');
    expect(repliesTo(api, 'Ev-q-busy')).toHaveLength(0);
    holdOf('hold: busy thread').resolve();
    await quiescent([hub, cloud]);
    expect(repliesTo(api, 'Ev-q-busy')).toHaveLength(1);
  });

  // The bug this catches: a thread's waiting turns past the bound dropped silently (no reply, or the turn left live and never answered).
  it('past the bound the oldest waiting follow-up is answered with a short note, once, and the rest in order after the running turn', async () => {
    const thread = ts();
    api.addMessage('C0GENERAL', { ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> hold: bounded thread' });
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-b-first', ts: thread, text: '<@UAUTOHUB> hold: bounded thread' }), { signingSecret: SECRET });
    await eventually(() => running.has('hold: bounded thread'), 'the first turn to run');
    const ids = Array.from({ length: STORE_LIMITS.conversationWaiting + 1 }, (_, i) => `Ev-b-follow-${i}`);
    for (const [i, eventId] of ids.entries()) {
      const at = ts();
      api.addMessage('C0GENERAL', { ts: at, thread_ts: thread, user: 'U0PERSON', text: `<@UAUTOHUB> follow-up ${i}` });
      await deliver(cloud.eventsUrl, mentionEnvelope({ eventId, ts: at, threadTs: thread, text: `<@UAUTOHUB> follow-up ${i}` }), { signingSecret: SECRET });
      await eventually(() => cloud.lines.some((l) => l.event === 'conversation.waiting' && l.eventId === eventId), `${eventId} to wait`);
    }
    // The oldest waiting one is told, while the first turn still runs; the person sees why.
    await eventually(() => repliesTo(api, 'Ev-b-follow-0').length > 0, 'the oldest waiting follow-up answered with the note', 10_000);
    expect(text('Ev-b-follow-0')).toBe(SKIPPED_NOTE);
    expect(cloud.lines.some((l) => l.event === 'conversation.skipped' && l.eventId === 'Ev-b-follow-0')).toBe(true);
    expect(running.has('follow-up 0')).toBe(false);
    holdOf('hold: bounded thread').resolve();
    await eventually(() => ids.every((id) => repliesTo(api, id).length > 0), 'every follow-up answered', 15_000);
    await quiescent([hub, cloud]);
    for (const id of ['Ev-b-first', ...ids]) expect(repliesTo(api, id)).toHaveLength(1);
    // The others ran after the first, each in its turn: the last saw every answer before it, the note included.
    const order = api.posts().map((p) => JSON.parse(p.params.metadata ?? '{}').event_payload?.event_id);
    for (const [i, id] of ids.slice(1).entries()) expect(order.indexOf(id)).toBeGreaterThan(order.indexOf(ids[i]!));
    expect(text(ids[ids.length - 1]!)).toContain(SKIPPED_NOTE);
  });
});
