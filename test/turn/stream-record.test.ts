/**
 * The record of a streamed reply's messages (one store command) is sent beside the stream's next
 * write, not before it. Before, a whole reply streamed as start, record, stop, finish: the stop waited
 * a store round trip for nothing a taker-over needs (a copy that dies with the record unanswered leaves
 * an open message without metadata, as in the window before the start's answer, or a stopped one whose
 * metadata the thread read finds). The record's failure still fails the write it went with.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../lib/errors/index.js';
import { ReplyWriter, type PartsLedger } from '../../lib/turn/writer.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { eventually } from '../support/copies.js';

describe("a streamed reply's record", () => {
  const api = useFakeWebApi();
  const client = () => new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
  const target = (channel: string) => ({
    channel,
    threadTs: '1700007200.000001',
    eventId: `Ev-${channel}`,
    recipientUser: 'U0PERSON',
    recipientTeam: 'T0AUTOHUB',
  });

  /** A ledger whose record the test answers. */
  function heldLedger() {
    const recorded: string[][] = [];
    let answer: (error?: Error) => void = () => {};
    const ledger: PartsLedger = {
      parts: [],
      recordParts: (ts) => {
        recorded.push([...ts]);
        return new Promise<void>((resolve, reject) => (answer = (error) => (error ? reject(error) : resolve())));
      },
      confirmed: () => {},
    };
    return { ledger, recorded, answer: (error?: Error) => answer(error) };
  }

  async function* whole(): AsyncIterable<string> {
    yield 'Hi <@U0PERSON>, ';
    yield 'I got that.';
  }

  const stops = (channel: string) => api.calls.filter((c) => c.method === 'chat.stopStream' && c.params.channel === channel);

  it('the stop of a whole reply leaves while the record of its start is unanswered, and the write ends when both have', async () => {
    const { ledger, recorded, answer } = heldLedger();
    const writer = new ReplyWriter(client(), target('C0BESIDE'), ledger, { closed: () => false });
    let done = false;
    const write = writer.write(whole()).then((outcome) => {
      done = true;
      return outcome;
    });
    await eventually(() => stops('C0BESIDE').length === 1, 'the stop, with the record unanswered');
    const started = api.calls.find((c) => c.method === 'chat.startStream' && c.params.channel === 'C0BESIDE')!;
    expect(recorded).toEqual([[(started.answer as { ts: string }).ts]]);
    expect(done).toBe(false);
    answer();
    expect(await write).toMatchObject({ how: 'streamed', parts: [(started.answer as { ts: string }).ts] });
    expect(stops('C0BESIDE')[0]!.params.markdown_text).toBe('I got that.');
  });

  it("a record that finds the turn another copy's fails the write it went with (the turn stands down)", async () => {
    const { ledger, answer } = heldLedger();
    const writer = new ReplyWriter(client(), target('C0LOSTREC'), ledger, { closed: () => false });
    const write = writer.write(whole());
    await eventually(() => stops('C0LOSTREC').length === 1, 'the stop');
    answer(new LeaseLostError('recording the stream'));
    await expect(write).rejects.toBeInstanceOf(LeaseLostError);
  });
});
