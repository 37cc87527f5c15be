/**
 * Other apps' messages on real copies (issue 45, item 3). Before, app/listeners/conversation.ts
 * answered every app_mention whoever wrote it: two agents that mention each other looped until a
 * rate limit. Now another app's message is a turn only when AUTOHUB_ALLOW_BOTS lists it, this
 * app's own never, and a thread where listed bots keep answering stops with one note.
 */
import { describe, expect, it } from 'vitest';
import { AUTOHUB_BOT, OTHER_APP } from '../../drill/sim/fake-web-api.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { BOT_LOOP, BOT_LOOP_NOTE } from '../../lib/turn/bots.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, messagesFor, quiescent, repliesTo, SECRET, turnOver, type RunningCopy } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

const otherApp = { user: OTHER_APP.user, bot_id: OTHER_APP.bot_id, app_id: OTHER_APP.app_id, name: OTHER_APP.name };
let n = 0;
const nextTs = () => `1700014000.${String(++n).padStart(6, '0')}`;

async function mention(copy: RunningCopy, eventId: string, o: Partial<Parameters<typeof mentionEnvelope>[0]> = {}): Promise<void> {
  const ack = await deliver(copy.eventsUrl, mentionEnvelope({ eventId, ts: nextTs(), ...o }), { signingSecret: SECRET });
  expect(ack.status).toBe(200);
  await turnOver(copy.store, eventId);
}

describe('no AUTOHUB_ALLOW_BOTS: only people are answered', () => {
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api });

  it("another app's @mention is acked and not answered; a person's beside it is", async () => {
    await mention(copy, 'Ev-bot-unlisted', { channel: 'C0BOTS1', by: otherApp });
    await mention(copy, 'Ev-person-beside', { channel: 'C0BOTS1' });
    await eventually(() => repliesTo(api, 'Ev-person-beside').length === 1, 'the person answered');
    expect(messagesFor(api, 'Ev-bot-unlisted')).toEqual([]);
    expect(copy.lines.some((l) => l.event === 'turn.other_bot' && l.eventId === 'Ev-bot-unlisted' && l.botId === OTHER_APP.bot_id)).toBe(true);
  });

  it("another app's DM is not answered", async () => {
    await mention(copy, 'Ev-bot-dm', { channel: 'D0BOTDM', type: 'message', channelType: 'im', text: 'hi', by: otherApp });
    expect(messagesFor(api, 'Ev-bot-dm')).toEqual([]);
  });
});

describe('AUTOHUB_ALLOW_BOTS lists another app', () => {
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, env: { AUTOHUB_ALLOW_BOTS: OTHER_APP.bot_id } });

  it('its @mention and its DM are answered', async () => {
    await mention(hub, 'Ev-bot-listed', { channel: 'C0BOTS2', by: otherApp });
    await mention(hub, 'Ev-bot-listed-dm', { channel: 'D0BOTDM2', type: 'message', channelType: 'im', text: 'hi', by: otherApp });
    await eventually(() => repliesTo(api, 'Ev-bot-listed').length === 1 && repliesTo(api, 'Ev-bot-listed-dm').length === 1, 'both answered');
  });
});

describe('two listed bots answering each other in one thread, across two copies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const env = { AUTOHUB_ALLOW_BOTS: '*' };
  const hub = useCopy({ role: 'hub', api, redis: fx, env });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env });

  it(`are answered ${BOT_LOOP.turns} times, then get one note, then nothing; a person in the same thread is still answered`, async () => {
    const thread = nextTs();
    const ids = Array.from({ length: BOT_LOOP.turns + 2 }, (_, i) => `Ev-loop-${i + 1}`);
    for (const [i, id] of ids.entries()) await mention(i % 2 ? cloud : hub, id, { channel: 'C0LOOP', threadTs: thread, by: otherApp });
    await quiescent([hub, cloud]);
    const answered = ids.filter((id) => repliesTo(api, id).length === 1 && repliesTo(api, id)[0]!.params.text !== BOT_LOOP_NOTE);
    expect(answered).toEqual(ids.slice(0, BOT_LOOP.turns));
    const notes = api.posts().filter((c) => c.params.text === BOT_LOOP_NOTE);
    expect(notes.map((c) => c.params.thread_ts)).toEqual([thread]);
    expect(messagesFor(api, ids.at(-1)!)).toEqual([]);
    await mention(hub, 'Ev-loop-person', { channel: 'C0LOOP', threadTs: thread });
    await eventually(() => repliesTo(api, 'Ev-loop-person').length === 1, 'the person answered');
  });

  it('this app\'s own message (its app_id, another bot_id) is never a turn, even under "*"', async () => {
    await mention(hub, 'Ev-self', { channel: 'C0SELF', by: { user: 'U0SOMEONE', bot_id: 'B0NOTOURS', app_id: AUTOHUB_BOT.app_id } });
    expect(messagesFor(api, 'Ev-self')).toEqual([]);
  });
});
