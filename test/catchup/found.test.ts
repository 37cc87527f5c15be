import { describe, expect, it } from 'vitest';
import { answeredLive, envelope, repliedInThread, threadToRead, type SlackMessage } from '../../lib/catchup/index.js';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { parseDelivery } from '../../lib/delivery/delivery.js';

const me = { user: 'UAUTOHUB', bot: 'BAUTOHUB', team: 'T0AUTOHUB' };
const channel = { id: 'C0FOUND', im: false };
const dm = { id: 'D0FOUND', im: true };
const person = (m: SlackMessage): SlackMessage => ({ ts: '1800000000.000100', user: 'U0PERSON', ...m });

describe('what the catch-up answers: what the live listeners answer, no more', () => {
  it.each([
    ['a mention at the top level of a channel', channel, person({ text: '<@UAUTOHUB> hi' }), true],
    ['a mention in a thread of a channel', channel, person({ text: '<@UAUTOHUB> hi', thread_ts: '1800000000.000001' }), true],
    [
      "a follow-up in the bot's thread in a channel, without a mention (never delivered: no message.channels)",
      channel,
      person({ text: 'thanks', thread_ts: '1800000000.000001' }),
      false,
    ],
    ['a DM', dm, person({ text: 'hi' }), true],
    ['a follow-up in a DM thread, without a mention', dm, person({ text: 'and also', thread_ts: '1800000000.000001' }), true],
    ['a DM reply also sent to the conversation', dm, person({ text: 'fyi', subtype: 'thread_broadcast', thread_ts: '1800000000.000001' }), true],
    ['an edit in a DM', dm, person({ text: 'hi', subtype: 'message_changed' }), false],
    ["the bot's own message", dm, { ts: '1800000000.000100', user: 'UAUTOHUB', bot_id: 'BAUTOHUB', text: 'hello' }, false],
    ["another bot's mention", channel, { ts: '1800000000.000100', bot_id: 'B0OTHER', text: '<@UAUTOHUB> ping' }, false],
    ['a join that names the bot', channel, person({ text: '<@UAUTOHUB> has joined', subtype: 'channel_join' }), false],
  ] as const)('%s', (_what, conversation, m, expected) => {
    expect(answeredLive(m, conversation, me)).toBe(expected);
  });

  it('a thread reply becomes the delivery Slack would have sent: claimed under the message key its live delivery takes, in its thread; a DM says channel_type im', () => {
    const inThread = envelope(me.team, channel, person({ text: '<@UAUTOHUB> hi', thread_ts: '1800000000.000001' }));
    const keys = (body: Record<string, unknown>) => {
      const parsed = parseDelivery('application/json', JSON.stringify(body));
      return parsed.kind === 'event' ? parsed.claimKeys : [];
    };
    const live = mentionEnvelope({ eventId: 'Ev-live', ts: '1800000000.000100', channel: 'C0FOUND', threadTs: '1800000000.000001' });
    const messageKeyOf = (body: Record<string, unknown>) => keys(body).find((k) => k.includes(':message:'));
    expect(messageKeyOf(inThread)).toBeDefined();
    expect(messageKeyOf(inThread)).toBe(messageKeyOf(live));
    expect(inThread.event).toMatchObject({ type: 'app_mention', thread_ts: '1800000000.000001' });
    expect(inThread.event).not.toHaveProperty('channel_type');
    const inDm = envelope(me.team, dm, person({ text: 'and also', thread_ts: '1800000000.000001' }));
    expect(inDm.event).toMatchObject({ type: 'message', channel_type: 'im', thread_ts: '1800000000.000001' });
    // What the turn reads off the live event comes along: a Slack Connect person's own team, the files.
    const files = [{ id: 'F0FILE', name: 'plan.pdf' }];
    expect(envelope(me.team, channel, person({ text: '<@UAUTOHUB> see', user_team: 'T0PARTNER', team: 'T0AUTOHUB', files })).event).toMatchObject({
      user_team: 'T0PARTNER',
      team: 'T0AUTOHUB',
      files,
    });
    // A parent, which history gives its own ts as thread_ts, is a top-level message, as its live delivery was.
    expect(envelope(me.team, channel, person({ text: '<@UAUTOHUB> hi', thread_ts: '1800000000.000100' })).event).not.toHaveProperty('thread_ts');
  });

  it('a thread is read when its latest reply is in the window and someone besides the bot replied (Slack may name the bot by its bot id)', () => {
    const parent = { ts: '1800000000.000001', reply_count: 2, latest_reply: '1800000600.000000' };
    expect(threadToRead({ ...parent, reply_users: ['U0PERSON', 'UAUTOHUB'] }, 1_800_000_000_000, me)).toBe(true);
    expect(threadToRead({ ...parent, reply_users: ['U0PERSON'] }, 1_800_000_700_000, me)).toBe(false);
    expect(threadToRead({ ...parent, reply_users: ['UAUTOHUB', 'BAUTOHUB'] }, 1_800_000_000_000, me)).toBe(false);
    expect(threadToRead({ ...parent, reply_users: ['UAUTOHUB'], reply_users_count: 2 }, 1_800_000_000_000, me)).toBe(true);
    expect(threadToRead({ ts: '1800000000.000001' }, 0, me)).toBe(false);
  });

  it("a top-level message whose thread holds the bot's reply was answered; a reply in a thread is left to its claim", () => {
    expect(repliedInThread({ ts: '1', thread_ts: '1', reply_users: ['BAUTOHUB'] }, me)).toBe(true);
    expect(repliedInThread({ ts: '2', thread_ts: '1', reply_users: ['UAUTOHUB'] }, me)).toBe(false);
  });
});
