/**
 * Slack's stream errors, as its docs list them
 * (https://docs.slack.dev/reference/methods/chat.appendStream, chat.startStream, chat.stopStream).
 * Before, only `message_not_in_streaming_state` was known: a person who pressed
 * Stop had their turn dead-lettered and the owner got a failure DM.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { MemoryStore, eventKey } from '../../lib/store/index.js';
import { checkThread, isOwnMessage } from '../../lib/turn/thread.js';
import { TURN_EVENT_TYPE } from '../../lib/turn/parts.js';
import { eventually, messagesFor, repliesTo, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('stream errors Slack documents', () => {
  const store = new MemoryStore();
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, store, env: { AUTOHUB_OWNER: 'U0OWNER' } });
  let n = 0;

  const refuse = (error: string) => ({ status: 200, body: { ok: false, error } });
  const ownerDms = () => api.posts().filter((c) => c.params.channel === 'U0OWNER');
  const stateOf = async (eventId: string) => (JSON.parse((await store.read(eventKey('T0AUTOHUB', eventId))) ?? '{}') as { state?: string }).state;

  // Each case in its own channel: a channel where Slack refused streams is posted to from then on.
  async function ask(
    eventId: string,
    envelope = mentionEnvelope({ eventId, channel: `C0ERR${++n}`, ts: `1700012000.${String(n).padStart(6, '0')}` }),
  ): Promise<void> {
    const ack = await deliver(copy.eventsUrl, envelope, { signingSecret: SECRET });
    expect(ack.status).toBe(200);
    await turnOver(copy.store, eventId);
  }

  it('the person pressed Stop (stopped_by_user): the turn is answered as far as it got, not retried, no dead letter, no owner DM', async () => {
    api.script('chat.stopStream', refuse('stopped_by_user'));
    await ask('Ev-stop');
    expect(await stateOf('Ev-stop')).toBe('done');
    expect(await store.listDead(10)).toEqual([]);
    expect(copy.lines.some((l) => l.event === 'turn.stopped_by_user' && l.eventId === 'Ev-stop')).toBe(true);
    expect(copy.lines.some((l) => l.event === 'turn.failed' && l.eventId === 'Ev-stop')).toBe(false);
    expect(ownerDms()).toHaveLength(0);
  });

  for (const error of ['channel_type_not_supported', 'missing_recipient_team_id', 'missing_recipient_user_id']) {
    it(`chat.startStream refused with ${error} before anything is visible: the answer goes out as one post with the turn's metadata`, async () => {
      api.script('chat.startStream', refuse(error));
      const eventId = `Ev-${error}`;
      await ask(eventId);
      expect(await stateOf(eventId)).toBe('done');
      const replies = repliesTo(api, eventId);
      expect(replies).toHaveLength(1);
      expect(replies[0]!.method).toBe('chat.postMessage');
      expect(replies[0]!.params.text).toMatch(/Answered by the hub/);
      expect(ownerDms()).toHaveLength(0);
    });
  }

  it("a Slack Connect user's stream names the user's own team (user_team), not the workspace the event came through", async () => {
    const envelope = mentionEnvelope({ eventId: 'Ev-connect', channel: 'C0CONNECT', ts: `1700012000.${String(++n).padStart(6, '0')}` });
    (envelope.event as Record<string, unknown>).user_team = 'T0THEIRS';
    await ask('Ev-connect', envelope);
    const start = api.calls.find((c) => c.method === 'chat.startStream' && c.params.thread_ts === (envelope.event as { ts: string }).ts);
    expect(start?.params.recipient_team_id).toBe('T0THEIRS');
    expect(start?.params.recipient_user_id).toBe('U0PERSON');
  });

  it('a turn that fails mid-stream leaves no message streaming: it is closed, and the retry completes the same message', async () => {
    api.script('chat.stopStream', { status: 500, body: { ok: false, error: 'internal_error' } });
    await ask('Ev-mid-fail');
    await eventually(() => messagesFor(api, 'Ev-mid-fail').length > 0, 'the retry to complete the message');
    expect(repliesTo(api, 'Ev-mid-fail')).toHaveLength(1);
    const thread = api.calls.find((c) => c.method === 'chat.startStream' && c.params.channel === `C0ERR${n}`)?.params.thread_ts;
    const streams = [...api.streams.values()].filter((st) => st.thread_ts === thread);
    expect(streams).toHaveLength(1);
    expect(streams[0]).toMatchObject({ state: 'updated', text: expect.stringMatching(/^Hi <@U0PERSON>, I got that\. Answered by the hub/) });
    expect(copy.lines.some((l) => l.event === 'turn.failed' && l.eventId === 'Ev-mid-fail' && l.outcome === 'retry')).toBe(true);
  });
});

describe('whose message is it: the orphan check knows this app', () => {
  const me = { appId: 'A0AUTOHUB', botId: 'BAUTOHUB', botUserId: 'UAUTOHUB' };
  it.each([
    [{ app_id: 'A0AUTOHUB', bot_id: 'BAUTOHUB' }, true],
    [{ app_id: 'A0OTHER', bot_id: 'BOTHER' }, false],
    [{ bot_id: 'BAUTOHUB' }, true],
    [{ bot_id: 'BOTHER' }, false],
    [{ user: 'UAUTOHUB' }, true],
    [{ user: 'U0PERSON' }, false],
  ])('%j is ours: %s', (message, expected) => {
    expect(isOwnMessage(message, me)).toBe(expected);
  });

  it("another app's open message, alone in the mention's thread, is not adopted (before: any bot_id was, and the turn dead-lettered on message_not_owned_by_app)", async () => {
    const client = {
      conversations: {
        replies: async () => ({ ok: true, messages: [{ ts: '1.000001' }, { ts: '1.000002', bot_id: 'BOTHER', app_id: 'A0OTHER' }], has_more: false }),
      },
    } as unknown as Parameters<typeof checkThread>[0];
    expect(await checkThread(client, { channel: 'C0X', threadTs: '1.000001', eventId: 'Ev-x' }, me, true)).toEqual({});
    const ours = {
      conversations: {
        replies: async () => ({ ok: true, messages: [{ ts: '1.000001' }, { ts: '1.000002', bot_id: 'BAUTOHUB', app_id: 'A0AUTOHUB' }], has_more: false }),
      },
    } as unknown as Parameters<typeof checkThread>[0];
    expect(await checkThread(ours, { channel: 'C0X', threadTs: '1.000001', eventId: 'Ev-x' }, me, true)).toEqual({ orphan: '1.000002' });
  });

  it('a reply in parts is whole only when its final part is in the thread; earlier parts alone are completed, not answered again', async () => {
    const meta = (part: number, final: boolean) => ({ event_type: TURN_EVENT_TYPE, event_payload: { event_id: 'Ev-parts', part, final } });
    const thread = (messages: unknown[]) =>
      ({ conversations: { replies: async () => ({ ok: true, messages: [{ ts: '2.000001' }, ...messages], has_more: false }) } }) as unknown as Parameters<
        typeof checkThread
      >[0];
    const target = { channel: 'C0X', threadTs: '2.000001', eventId: 'Ev-parts' };
    const twoParts = (secondIsFinal: boolean) =>
      checkThread(
        thread([
          { ts: '2.000002', metadata: meta(0, false) },
          { ts: '2.000003', metadata: meta(1, secondIsFinal) },
        ]),
        target,
        me,
      );
    expect(await twoParts(false)).toEqual({ parts: ['2.000002', '2.000003'] });
    expect(await twoParts(true)).toEqual({ reply: '2.000002' });
  });
});
