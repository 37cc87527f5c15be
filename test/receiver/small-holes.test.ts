/** Smaller holes, each with a real copy, real Bolt and the real WebClient. */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { checkThread, type ReplyTarget } from '../../lib/turn/thread.js';
import { TURN_EVENT_TYPE } from '../../lib/turn/parts.js';
import { isPersonsDirectMessage } from '../../app/listeners/conversation.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { parseDelivery } from '../../lib/delivery/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('which direct messages are a person writing', () => {
  it.each([
    [{ channel_type: 'im' }, true],
    [{ channel_type: 'im', subtype: 'file_share' }, true],
    [{ channel_type: 'im', subtype: 'thread_broadcast' }, true],
    [{ channel_type: 'im', subtype: 'message_changed' }, false],
    [{ channel_type: 'im', subtype: 'message_deleted' }, false],
    [{ channel_type: 'im', subtype: 'bot_message' }, false],
    [{ channel_type: 'im', bot_id: 'B1' }, false],
    [{ channel_type: 'channel' }, false],
  ])('%j answered: %s', (message, expected) => {
    expect(isPersonsDirectMessage(message)).toBe(expected);
  });
});

describe('alias keys are per event type', () => {
  it('an @mention typed in a DM (app_mention and message.im, two event ids) claims one message key: it is answered once', () => {
    const keys = (d: ReturnType<typeof parseDelivery>) => ('claimKeys' in d ? d.claimKeys : []);
    const asDm = parseDelivery(
      'application/json',
      JSON.stringify(mentionEnvelope({ eventId: 'E1', ts: '1.0', channel: 'D0DM', type: 'message', channelType: 'im' })),
    );
    const asMention = parseDelivery('application/json', JSON.stringify(mentionEnvelope({ eventId: 'E2', ts: '1.0', channel: 'D0DM' })));
    expect(keys(asDm)[1]).toBeDefined();
    expect(keys(asDm)[1]).toBe(keys(asMention)[1]);
  });

  it('a message in a channel (message.channels, as followUps subscribes) claims the message key its @mention twin claims: whichever comes first answers it', () => {
    const keys = (d: ReturnType<typeof parseDelivery>) => ('claimKeys' in d ? d.claimKeys : []);
    const message = parseDelivery('application/json', JSON.stringify(mentionEnvelope({ eventId: 'E1', ts: '1.0', type: 'message', channelType: 'channel' })));
    const mention = parseDelivery('application/json', JSON.stringify(mentionEnvelope({ eventId: 'E2', ts: '1.0' })));
    expect(keys(message)[1]).toBeDefined();
    expect(keys(message)[1]).toBe(keys(mention)[1]);
  });
});

describe('a copy answering the small cases', () => {
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, store: new MemoryStore() });

  it('a DM carrying a file (subtype file_share) gets its answer', async () => {
    const body = mentionEnvelope({ eventId: 'Ev-file', ts: '1700002000.000001', type: 'message', channelType: 'im', channel: 'D0DM' });
    (body.event as Record<string, unknown>).subtype = 'file_share';
    expect((await deliver(copy.eventsUrl, body, { signingSecret: SECRET })).status).toBe(200);
    await eventually(() => repliesTo(api, 'Ev-file').length === 1, 'the reply to the file');
  });

  it('a channel message event arriving before the mention of the same message answers it, once (the mention is its duplicate)', async () => {
    const ts = '1700002000.000002';
    const plain = mentionEnvelope({ eventId: 'Ev-plain', ts, type: 'message', channelType: 'channel' });
    expect((await deliver(copy.eventsUrl, plain, { signingSecret: SECRET })).headers.get('x-autohub-claim')).toBe('claimed');
    const mention = mentionEnvelope({ eventId: 'Ev-mention', ts });
    expect((await deliver(copy.eventsUrl, mention, { signingSecret: SECRET })).headers.get('x-autohub-claim')).toBe('duplicate');
    await eventually(() => repliesTo(api, 'Ev-plain').length === 1, 'the reply to the mention');
    expect(repliesTo(api, 'Ev-mention')).toHaveLength(0);
  });

  it('an interactivity payload no listener acks is acked at once, not at the deadline', async () => {
    const payload = JSON.stringify({ type: 'block_actions', trigger_id: 'trig-1', team: { id: 'T0AUTOHUB' }, user: { id: 'U0PERSON' }, actions: [] });
    const response = await deliver(copy.eventsUrl, new URLSearchParams({ payload }).toString(), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-ack')).toBeNull();
  });
});

describe('the thread check reads every page', () => {
  const api = useFakeWebApi();

  const me = { appId: 'A0AUTOHUB', botId: 'BAUTOHUB', botUserId: 'UAUTOHUB' };

  it('finds a reply that stands past the first page (1,000 messages) of the thread', async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
    const thread = { channel: 'C0LONG', thread_ts: '1700002100.000001' };
    await Promise.all(Array.from({ length: 1010 }, (_, i) => client.chat.postMessage({ ...thread, text: `chatter ${i}` })));
    await client.chat.postMessage({ ...thread, text: 'the answer', metadata: { event_type: TURN_EVENT_TYPE, event_payload: { event_id: 'Ev-deep' } } });
    const target = (eventId: string): ReplyTarget => ({ channel: thread.channel, threadTs: thread.thread_ts, eventId });
    expect((await checkThread(client, target('Ev-deep'), me)).reply).toBeDefined();
    expect(api.calls.filter((c) => c.method === 'conversations.replies')).toHaveLength(2);
    expect(await checkThread(client, target('Ev-other'), me)).toEqual({});
  });

  it('reads on past 20 pages: a thread of 30,000 replies whose answer is last (the old check stopped at 4,000 and a retry posted again)', async () => {
    // Slack may return fewer messages than `limit` on a page (https://docs.slack.dev/apis/web-api/pagination):
    // a stand-in that serves 25 a page makes the many-pages case cheap. Only the paging is under test here.
    const total = 30_000;
    let calls = 0;
    const client = {
      conversations: {
        replies: async (args: { cursor?: string }) => {
          calls++;
          const start = Number(args.cursor ?? 0);
          const messages = Array.from({ length: Math.min(25, total - start) }, (_, i) => {
            const n = start + i;
            const answer = n === total - 1;
            return {
              ts: `1700002300.${String(n + 1).padStart(6, '0')}`,
              ...(answer ? { metadata: { event_type: TURN_EVENT_TYPE, event_payload: { event_id: 'Ev-30k' } } } : {}),
            };
          });
          const next = start + 25 < total ? String(start + 25) : '';
          return { ok: true, messages, has_more: next !== '', response_metadata: { next_cursor: next } };
        },
      },
    } as unknown as Parameters<typeof checkThread>[0];
    expect((await checkThread(client, { channel: 'C0HUGE', threadTs: '1700002300.000000', eventId: 'Ev-30k' }, me)).reply).toBe('1700002300.030000');
    expect(calls).toBe(total / 25);
  });

  it("adopts an open stream without metadata only where it can be nobody else's: the one message in the mention's own thread", async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
    const target = (threadTs: string) => ({ channel: 'C0ORPHAN', threadTs, eventId: 'Ev-orphan' });
    const alone = '1700002200.000001';
    // Outside a DM Slack wants the stream's recipient (chat.startStream's missing_recipient_*).
    const to = { recipient_user_id: 'U0PERSON', recipient_team_id: 'T0AUTOHUB' };
    const { ts } = await client.chat.startStream({ channel: 'C0ORPHAN', thread_ts: alone, markdown_text: 'Hi', ...to });
    expect(await checkThread(client, target(alone), me, true)).toEqual({ orphan: ts });
    // A mention inside a longer thread: that message may be another turn's, live.
    expect(await checkThread(client, target(alone), me, false)).toEqual({});
    // Two such messages in the thread: either could be another turn's.
    const crowded = '1700002200.000002';
    await client.chat.startStream({ channel: 'C0ORPHAN', thread_ts: crowded, markdown_text: 'Hi', ...to });
    await client.chat.startStream({ channel: 'C0ORPHAN', thread_ts: crowded, markdown_text: 'Hi', ...to });
    expect(await checkThread(client, target(crowded), me, true)).toEqual({});
  });
});
