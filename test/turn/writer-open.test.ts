/**
 * The message a writer leaves unfinished (`ReplyWriter#open`), which the turn's handle closes when the turn
 * fails (`interrupt`) or is cut off. A stream Slack closed under the run (message_not_in_streaming_state,
 * https://docs.slack.dev/reference/methods/chat.appendStream) is still the run's to finish: forgetting it
 * left the message without the interrupted note, half an answer that read as whole.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ReplyWriter } from '../../lib/turn/writer.js';
import { useFakeWebApi } from '../support/fixtures.js';

describe('the message a writer leaves unfinished', () => {
  const api = useFakeWebApi();

  it('a stream Slack closed before the turn failed is named open, and interrupt rewrites it with the text Slack holds and the note', async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
    const target = { channel: 'C0STALE', threadTs: '1700007100.000001', eventId: 'Ev-stale', recipientUser: 'U0PERSON', recipientTeam: 'T0AUTOHUB' };
    // Every stream is past its life from its first append on, as Slack's are after about 5 minutes.
    const life = api.streamLifeMs;
    api.streamLifeMs = -1;
    onTestFinished(() => {
      api.streamLifeMs = life;
    });
    const writer = new ReplyWriter(client, target, undefined, { closed: () => false, appendEveryMs: 0 });
    async function* turn(): AsyncIterable<string> {
      yield 'Counting';
      yield ' to ten';
      throw new Error('the model went away');
    }
    await expect(writer.write(turn())).rejects.toThrow(/the model went away/);
    const started = api.calls.find((c) => c.method === 'chat.startStream' && c.params.channel === 'C0STALE')!;
    const ts = (started.answer as { ts: string }).ts;
    expect(writer.open).toBe(ts);
    await writer.interrupt(' _(interrupted)_');
    const update = api.calls.findLast((c) => c.method === 'chat.update')!;
    expect(update.params).toMatchObject({ channel: 'C0STALE', ts, markdown_text: 'Counting _(interrupted)_' });
    expect(writer.open).toBeUndefined();
  });
});
