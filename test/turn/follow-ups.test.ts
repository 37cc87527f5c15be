/**
 * Follow-ups, opt-in (issue 45, item 6: `followUps: { minutes }`). Before, a person's reply in a thread the
 * bot had just answered got nothing unless it @mentioned the bot again: every channel `message` was
 * dropped. Now, with the module's `followUps`, a person's reply in a thread the bot answered within the
 * minutes is a turn, on whichever copy it reaches (the thread's mark is in the shared store), in the
 * conversation's order, once; without it, and for apps' messages, nothing.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { AUTOHUB_BOT, OTHER_APP } from '../../drill/sim/fake-web-api.js';
import { channelMessageKind, parseFollowUps } from '../../lib/turn/index.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { eventually, quiescent, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const seen: string[] = [];
/** The first turn of a thread whose text is `hold` waits for `release` (a turn still running when the follow-up comes). */
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});
const bot = (followUps: TurnModule['followUps']): TurnModule => ({
  takeTurn: async (request) => {
    seen.push(`${request.threadTs} ${request.text}`);
    if (request.text === 'hold') await held;
    return `Answer to: ${request.text}`;
  },
  ...(followUps ? { followUps } : {}),
});

/** A message in a channel as message.channels sends it (https://docs.slack.dev/reference/events/message.channels). */
const channelMessage = (o: { eventId: string; ts: string; threadTs?: string; text: string; channel: string; by?: typeof OTHER_APP }) =>
  mentionEnvelope({ ...o, type: 'message', channelType: 'channel' });
const mention = (o: { eventId: string; ts: string; threadTs?: string; text?: string; channel: string }) =>
  mentionEnvelope({ ...o, text: o.text ?? '<@UAUTOHUB> what is 2+2' });
const sent = (url: string, body: Record<string, unknown>) => deliver(url, body, { signingSecret: SECRET });

describe('followUps: { minutes: 30 }, across two copies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const followUps = { minutes: 30 };
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot(followUps), env: { AUTOHUB_ALLOW_BOTS: '*' } });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, turn: bot(followUps), env: { AUTOHUB_ALLOW_BOTS: '*' } });

  it('a reply with no mention in a thread the hub answered reaches the cloud copy, and is answered there once, in the thread', async () => {
    const ts = '1700070000.000100';
    await sent(hub.eventsUrl, mention({ eventId: 'Ev-fu-first', ts, channel: 'C0FOLLOW1' }));
    await eventually(() => repliesTo(api, 'Ev-fu-first').length === 1, 'the first answer');
    const reply = (eventId: string) => channelMessage({ eventId, ts: '1700070005.000100', threadTs: ts, channel: 'C0FOLLOW1', text: 'and 3+3?' });
    // Slack's retry of it under another event id, to the other copy.
    await Promise.all([sent(cloud.eventsUrl, reply('Ev-fu-1')), sent(hub.eventsUrl, reply('Ev-fu-2'))]);
    await quiescent([hub, cloud]);
    const answers = [...repliesTo(api, 'Ev-fu-1'), ...repliesTo(api, 'Ev-fu-2')];
    expect(answers.map((c) => [c.params.channel, c.params.thread_ts, c.params.text])).toEqual([['C0FOLLOW1', ts, 'Answer to: and 3+3?']]);
  });

  it('a reply in a thread the bot never answered, and a top-level message, are not answered', async () => {
    await sent(
      cloud.eventsUrl,
      channelMessage({ eventId: 'Ev-fu-none', ts: '1700070011.000100', threadTs: '1700070010.000100', channel: 'C0FOLLOW2', text: 'hm' }),
    );
    await sent(hub.eventsUrl, channelMessage({ eventId: 'Ev-fu-top', ts: '1700070012.000100', channel: 'C0FOLLOW2', text: 'lunch?' }));
    await quiescent([hub, cloud]);
    expect([...repliesTo(api, 'Ev-fu-none'), ...repliesTo(api, 'Ev-fu-top')]).toEqual([]);
  });

  it("neither the bot's own message in its thread nor another app's reply (listed in AUTOHUB_ALLOW_BOTS) is a follow-up", async () => {
    const ts = '1700070020.000100';
    await sent(hub.eventsUrl, mention({ eventId: 'Ev-fu-bots', ts, channel: 'C0FOLLOW3' }));
    await eventually(() => repliesTo(api, 'Ev-fu-bots').length === 1, 'the first answer');
    await sent(
      cloud.eventsUrl,
      mentionEnvelope({
        eventId: 'Ev-fu-self',
        ts: '1700070021.000100',
        threadTs: ts,
        channel: 'C0FOLLOW3',
        type: 'message',
        channelType: 'channel',
        text: 'Answer to: x',
        by: AUTOHUB_BOT,
      }),
    );
    await sent(
      cloud.eventsUrl,
      channelMessage({ eventId: 'Ev-fu-other', ts: '1700070022.000100', threadTs: ts, channel: 'C0FOLLOW3', text: 'I can help too', by: OTHER_APP }),
    );
    await quiescent([hub, cloud]);
    expect([...repliesTo(api, 'Ev-fu-self'), ...repliesTo(api, 'Ev-fu-other')]).toEqual([]);
  });

  it('a follow-up that also mentions the bot (app_mention and message, one to each copy) is answered once', async () => {
    const ts = '1700070030.000100';
    await sent(hub.eventsUrl, mention({ eventId: 'Ev-fu-m0', ts, channel: 'C0FOLLOW4' }));
    await eventually(() => repliesTo(api, 'Ev-fu-m0').length === 1, 'the first answer');
    const at = { ts: '1700070031.000100', threadTs: ts, channel: 'C0FOLLOW4', text: '<@UAUTOHUB> and 4+4?' };
    await Promise.all([sent(hub.eventsUrl, mention({ eventId: 'Ev-fu-m1', ...at })), sent(cloud.eventsUrl, channelMessage({ eventId: 'Ev-fu-m2', ...at }))]);
    await quiescent([hub, cloud]);
    expect([...repliesTo(api, 'Ev-fu-m1'), ...repliesTo(api, 'Ev-fu-m2')].map((c) => c.params.text)).toEqual(['Answer to: and 4+4?']);
  });

  it("a reply written while the thread's first turn still runs waits for it (the conversation's order), then is answered", async () => {
    const ts = '1700070040.000100';
    await sent(hub.eventsUrl, mention({ eventId: 'Ev-fu-hold', ts, channel: 'C0FOLLOW5', text: '<@UAUTOHUB> hold' }));
    await eventually(() => seen.includes(`${ts} hold`), 'the first turn to start');
    await sent(cloud.eventsUrl, channelMessage({ eventId: 'Ev-fu-next', ts: '1700070041.000100', threadTs: ts, channel: 'C0FOLLOW5', text: 'and then?' }));
    await eventually(() => cloud.runner.conversing === 1, 'the reply to wait behind the running turn');
    release();
    await quiescent([hub, cloud]);
    expect(seen.filter((s) => s.startsWith(ts))).toEqual([`${ts} hold`, `${ts} and then?`]);
    // Answered after the first turn's answer, not beside it.
    const posted = api.posts().map((c) => c.params.text);
    expect(posted.filter((t) => t === 'Answer to: hold' || t === 'Answer to: and then?')).toEqual(['Answer to: hold', 'Answer to: and then?']);
  });
});

describe('followUps off (the default)', () => {
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, turn: bot(undefined) });

  it('a reply in a thread the bot answered is not answered; a mention that comes as message and app_mention is answered once', async () => {
    const ts = '1700070050.000100';
    await sent(copy.eventsUrl, mention({ eventId: 'Ev-fu-off0', ts, channel: 'C0FOLLOW6' }));
    await eventually(() => repliesTo(api, 'Ev-fu-off0').length === 1, 'the first answer');
    await sent(copy.eventsUrl, channelMessage({ eventId: 'Ev-fu-off1', ts: '1700070051.000100', threadTs: ts, channel: 'C0FOLLOW6', text: 'and?' }));
    // An app whose own listeners subscribe to message.channels gets both events for a mention.
    const at = { ts: '1700070052.000100', channel: 'C0FOLLOW6', text: '<@UAUTOHUB> hi' };
    await sent(copy.eventsUrl, channelMessage({ eventId: 'Ev-fu-off2', ...at }));
    await sent(copy.eventsUrl, mention({ eventId: 'Ev-fu-off3', ...at }));
    await quiescent([copy]);
    expect(repliesTo(api, 'Ev-fu-off1')).toEqual([]);
    expect([...repliesTo(api, 'Ev-fu-off2'), ...repliesTo(api, 'Ev-fu-off3')].map((c) => c.params.text)).toEqual(['Answer to: hi']);
  });
});

describe('followUps, read', () => {
  it('takes { minutes } from 1 to 1,440, and names what it got otherwise', () => {
    expect(parseFollowUps(undefined)).toEqual({ ok: true, value: undefined });
    expect(parseFollowUps({ minutes: 30 })).toEqual({ ok: true, value: { minutes: 30 } });
    for (const bad of [30, { minutes: 0 }, { minutes: 1441 }, { minutes: 2.5 }, { minute: 5 }, null]) {
      expect(parseFollowUps(bad)).toMatchObject({ ok: false, expected: expect.stringMatching(/^followUps, when exported, to be \{ minutes \} .* but it is /) });
    }
  });

  it("tells a channel message's kind: its mention's twin, a reply, or neither; a DM is none of these", () => {
    const m = { type: 'message', channel: 'C1', channel_type: 'channel', ts: '2.2' };
    expect(channelMessageKind({ ...m, text: '<@UAUTOHUB> hi' }, 'UAUTOHUB')).toBe('mention');
    expect(channelMessageKind({ ...m, text: 'and?', thread_ts: '1.1' }, 'UAUTOHUB')).toBe('reply');
    expect(channelMessageKind({ ...m, text: 'lunch?' }, 'UAUTOHUB')).toBe('none');
    expect(channelMessageKind({ ...m, text: 'x', thread_ts: '1.1', subtype: 'message_changed' }, 'UAUTOHUB')).toBe('none');
    expect(channelMessageKind({ ...m, channel: 'D1', channel_type: 'im', text: 'and?', thread_ts: '1.1' }, 'UAUTOHUB')).toBe('none');
  });
});
