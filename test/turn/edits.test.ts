/**
 * Edited prompts, opt-in (issue 45, item 6: `edits: 'answer'`). Before, a person who fixed a typo in their DM
 * got nothing: every `message_changed` was dropped. Now, with the module's `edits: 'answer'`, their edit is a
 * new message of the thread, answered once across the copies, in the conversation's order; without it, and
 * for the bot's own messages (which change as they stream), nothing.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { conversationOf } from '../../lib/conversation/index.js';
import { editedPrompt } from '../../lib/turn/edits.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { eventually, quiescent, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

/** A person's edit of their DM as Slack sends it (https://docs.slack.dev/reference/events/message/message_changed). */
function editEnvelope(o: { eventId: string; channel: string; ts: string; text: string; editTs: string; by?: { bot_id: string } }): Record<string, unknown> {
  return {
    token: 'legacy-verification-token',
    team_id: 'T0AUTOHUB',
    api_app_id: 'A0AUTOHUB',
    type: 'event_callback',
    event_id: o.eventId,
    event_time: Math.floor(Number(o.editTs)),
    event: {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: o.channel,
      channel_type: 'im',
      ts: o.editTs,
      event_ts: o.editTs,
      message: {
        type: 'message',
        user: o.by ? 'UAUTOHUB' : 'U0PERSON',
        ...(o.by ? { bot_id: o.by.bot_id } : {}),
        text: o.text,
        ts: o.ts,
        edited: { user: o.by ? 'UAUTOHUB' : 'U0PERSON', ts: o.editTs },
      },
      previous_message: { type: 'message', user: 'U0PERSON', text: 'the old text', ts: o.ts },
    },
  };
}

const seen: string[] = [];
const bot = (edits: 'answer' | undefined): TurnModule => ({
  takeTurn: (request) => {
    seen.push(request.text);
    return `Answer to: ${request.text}`;
  },
  ...(edits ? { edits } : {}),
});

describe("edits: 'answer', across two copies", () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot('answer') });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, turn: bot('answer') });

  it('an edited DM is answered as it now reads, in its thread, once for two deliveries (two event ids, two copies)', async () => {
    const ts = '1700060000.000100';
    await deliver(
      hub.eventsUrl,
      mentionEnvelope({ eventId: 'Ev-edit-first', ts, channel: 'D0EDIT1', type: 'message', channelType: 'im', text: 'whta is 2+2' }),
      {
        signingSecret: SECRET,
      },
    );
    await eventually(() => repliesTo(api, 'Ev-edit-first').length === 1, 'the first answer');
    const edit = (eventId: string) => editEnvelope({ eventId, channel: 'D0EDIT1', ts, text: 'what is 2+2', editTs: '1700060005.000100' });
    await Promise.all([
      deliver(hub.eventsUrl, edit('Ev-edit-1'), { signingSecret: SECRET }),
      deliver(cloud.eventsUrl, edit('Ev-edit-2'), { signingSecret: SECRET }),
    ]);
    await quiescent([hub, cloud]);
    const answers = [...repliesTo(api, 'Ev-edit-1'), ...repliesTo(api, 'Ev-edit-2')];
    expect(answers.map((c) => [c.params.thread_ts, c.params.text])).toEqual([[ts, 'Answer to: what is 2+2']]);
  });

  it("the bot's own message changing (a stream, a rewrite) is no edit to answer", async () => {
    await deliver(
      hub.eventsUrl,
      editEnvelope({
        eventId: 'Ev-edit-own',
        channel: 'D0EDIT2',
        ts: '1700060010.000100',
        text: 'my reply',
        editTs: '1700060011.000100',
        by: { bot_id: 'BAUTOHUB' },
      }),
      {
        signingSecret: SECRET,
      },
    );
    await quiescent([hub, cloud]);
    expect(repliesTo(api, 'Ev-edit-own')).toEqual([]);
  });
});

describe('edits off (the default)', () => {
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, turn: bot(undefined) });

  it('an edited DM is not answered', async () => {
    await deliver(
      copy.eventsUrl,
      editEnvelope({ eventId: 'Ev-edit-off', channel: 'D0EDIT3', ts: '1700060020.000100', text: 'fixed', editTs: '1700060021.000100' }),
      {
        signingSecret: SECRET,
      },
    );
    await quiescent([copy]);
    expect(repliesTo(api, 'Ev-edit-off')).toEqual([]);
  });
});

describe('an edit in the conversation', () => {
  it("takes the place of the thread of the message it edits (its order), and an app's change takes none", () => {
    const body = editEnvelope({ eventId: 'Ev-e', channel: 'D1', ts: '5.5', text: 'x', editTs: '6.6' });
    expect(conversationOf(body)).toBe('T0AUTOHUB:D1:5.5');
    expect(conversationOf(editEnvelope({ eventId: 'Ev-b', channel: 'D1', ts: '5.5', text: 'x', editTs: '6.6', by: { bot_id: 'B1' } }))).toBeUndefined();
    expect(
      editedPrompt({
        type: 'message',
        subtype: 'message_changed',
        channel: 'C1',
        channel_type: 'channel',
        message: { user: 'U1', text: 'x', ts: '1.1', edited: { ts: '2.2' } },
      }),
    ).toBeUndefined();
  });
});
