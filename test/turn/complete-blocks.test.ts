/**
 * A reply with blocks (feedback buttons) completed by an update, as a copy
 * that took a turn over completes the stream its owner began: Slack refuses
 * chat.update with markdown_text beside blocks (markdown_text_conflict,
 * https://docs.slack.dev/reference/methods/chat.update), which made every
 * such taken-over turn a dead letter.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { ReplyWriter } from '../../lib/turn/writer.js';
import { useFakeWebApi } from '../support/fixtures.js';

const FEEDBACK = {
  type: 'context_actions',
  elements: [
    {
      type: 'feedback_buttons',
      action_id: 'feedback',
      positive_button: { text: { type: 'plain_text', text: 'Good' }, value: 'positive' },
      negative_button: { text: { type: 'plain_text', text: 'Bad' }, value: 'negative' },
    },
  ],
};

describe('completing a reply that has blocks', () => {
  const api = useFakeWebApi();

  it("rewrites the begun message with the whole answer and the bot's blocks, refused by nothing", async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
    const target = { channel: 'C0BLOCKS', threadTs: '1700007000.000001', eventId: 'Ev-blocks', recipientUser: 'U0PERSON', recipientTeam: 'T0AUTOHUB' };
    const started = await client.chat.startStream({
      channel: target.channel,
      thread_ts: target.threadTs,
      markdown_text: 'Counting',
      recipient_user_id: 'U0PERSON',
      recipient_team_id: 'T0AUTOHUB',
    });
    const writer = new ReplyWriter(client, target, undefined, { closed: () => false });
    await writer.complete([started.ts!], 'Counting to ten.', [FEEDBACK]);
    const update = api.calls.findLast((c) => c.method === 'chat.update')!;
    expect(update.answer).toMatchObject({ ok: true });
    expect(api.streams.get(started.ts!)).toMatchObject({ state: 'updated', text: 'Counting to ten.' });
    expect(JSON.parse(update.params.blocks!)).toEqual([{ type: 'markdown', text: 'Counting to ten.' }, FEEDBACK]);
  });
});
