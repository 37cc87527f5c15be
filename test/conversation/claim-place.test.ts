/**
 * A turn's place in its thread's order is taken by its claim, on real
 * copies (a hub and a cloud copy sharing one Redis through the Upstash
 * bridge, real Bolt, the real WebClient against the fake Web API).
 *
 * The bug this catches (the drill at 1,000 mentions, 1 follow-up of 500 out
 * of order): the place was taken at the turn's first look at the gate, just
 * after its claim. The hub claimed a message and died before that look; the
 * follow-up, claimed on the cloud copy, found nobody ahead and was answered;
 * the message itself was answered minutes later, after it, once taken over.
 * A message alone in its thread has that first look made by its claim now
 * (CLAIM_SCRIPT with its first look): the hub freezes once the turn it
 * claimed starts, and the follow-up must still find it ahead (a claim that
 * admitted the turn without placing it would let the follow-up run first).
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { UpstashStore } from '../../lib/store/index.js';
import type { TakeTurn } from '../../lib/bot/index.js';
import { eventually, quiescent, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { freezingStore } from '../support/freezing-store.js';
import { type RedisFixture, useRedisBridge } from '../support/redis-fixture.js';

/**
 * The hub's store: it freezes at the first look of the turn `freezeAt` (its
 * claim landed, its first look not sent), or once that turn starts (its
 * claim made its first look: hubTurn), so the hub neither looks nor renews a
 * lease until `thaw`. `looked`: the turn keys the hub's gate looked for.
 */
function hubStoreOn(fx: RedisFixture) {
  const state = { freezeAt: '', looked: [] as string[] };
  const frozen = freezingStore(new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => undefined }), {
    // What keeps a copy alive in the store: while frozen, these wait (unsent) until the copy is thawed, as under SIGSTOP.
    calls: ['renew', 'look', 'enterConversation'],
    onCall: (name, args, store) => {
      if (name !== 'enterConversation') return;
      state.looked.push(String(args[1]));
      if (state.freezeAt !== '' && String(args[1]).includes(state.freezeAt)) store.freeze();
    },
  });
  return { frozen, state };
}

const turn: TakeTurn = async (request, ctx) => {
  const history = await ctx.history();
  if (history.length === 0) return `the answer to ${request.text}`;
  return `saw: ${history.map((m) => `${m.role}:${m.text}`).join(' | ')}`;
};

describe('a turn takes its place in its thread’s order at its claim', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const env = { AUTOHUB_LEASE_MS: '2000', AUTOHUB_LEASE_RENEW_MS: '500', AUTOHUB_REAPER_MS: '500' };
  const hubStore = { current: undefined as ReturnType<typeof hubStoreOn> | undefined };
  /** The hub's turn: the message `freezeAt` names freezes the hub as it starts (admitted by its claim, no look made), until `thaw`. */
  const hubTurn: TakeTurn = async (request, ctx) => {
    const { frozen, state } = hubStore.current!;
    if (state.freezeAt !== '' && request.text.includes('first question')) {
      frozen.freeze();
      await frozen.hold();
    }
    return turn(request, ctx);
  };
  const hub = useCopy({ role: 'hub', api, env, turn: hubTurn, store: () => (hubStore.current = hubStoreOn(fx)).frozen.store });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env, turn });
  const ts = (n: number) => `${Math.floor(Date.now() / 1000) - 60}.${String(n).padStart(6, '0')}`;

  it('a message claimed on a copy that froze before it ran (its claim made its first look) is answered before a follow-up claimed after it on the other copy', async () => {
    const { frozen, state } = hubStore.current!;
    const thread = ts(1);
    const followTs = ts(2);
    state.freezeAt = 'Ev-place-first';
    api.addMessage('C0GENERAL', { ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> first question' });
    api.addMessage('C0GENERAL', { ts: followTs, thread_ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> and a follow-up' });

    const first = mentionEnvelope({ eventId: 'Ev-place-first', ts: thread, text: '<@UAUTOHUB> first question' });
    expect((await deliver(hub.eventsUrl, first, { signingSecret: SECRET })).status).toBe(200);
    await eventually(() => frozen.frozen, 'the hub to freeze as the message it claimed starts');
    // Its claim admitted it: the hub's gate made no look of its own.
    expect(state.looked).toEqual([]);

    const follow = mentionEnvelope({ eventId: 'Ev-place-follow', ts: followTs, threadTs: thread, text: '<@UAUTOHUB> and a follow-up' });
    expect((await deliver(cloud.eventsUrl, follow, { signingSecret: SECRET })).status).toBe(200);

    // The cloud copy takes the message over once the frozen hub's lease lapses, and answers both.
    await eventually(() => repliesTo(api, 'Ev-place-follow').length > 0 && repliesTo(api, 'Ev-place-first').length > 0, 'both answered', 15_000);
    await quiescent([cloud]);
    const order = api.posts().map((p) => JSON.parse(p.params.metadata ?? '{}').event_payload?.event_id);
    expect(order.indexOf('Ev-place-first')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('Ev-place-first')).toBeLessThan(order.indexOf('Ev-place-follow'));
    expect(repliesTo(api, 'Ev-place-follow')[0]?.params.text).toBe('saw: user:first question | assistant:the answer to first question');
    expect(cloud.lines.some((l) => l.event === 'conversation.waiting' && l.eventId === 'Ev-place-follow')).toBe(true);

    // The hub wakes: its turn was taken over, and it answers nothing again.
    frozen.thaw();
    await quiescent([hub, cloud]);
    expect(repliesTo(api, 'Ev-place-first')).toHaveLength(1);
    expect(repliesTo(api, 'Ev-place-follow')).toHaveLength(1);
  });
});
