/**
 * The far turn bench's reading of what a person saw (bench/visible.ts): from the calls that reached
 * the fake Web API, when each mention's first visible sign came and when its answer was whole.
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { seenByThread, type SeenCall } from '../../bench/visible.js';
import { inTurn } from '../../bench/turn-waits.js';
import { useFakeWebApi } from '../support/fixtures.js';

const ok = (extra: Record<string, unknown> = {}) => ({ ok: true, ...extra });
const call = (method: string, at: number, params: Record<string, string>, answer: unknown = ok(), status = 200): SeenCall => ({
  method,
  at,
  params,
  status,
  answer,
});

describe('what a person saw of each answer', () => {
  const api = useFakeWebApi();

  it('a status then a stream, as stock Bolt with chatStream sends them to the fake: the status is the first sign, the stop the whole answer', async () => {
    const client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
    const thread = '1700000000.000100';
    const from = api.calls.length;
    await client.assistant.threads.setStatus({ channel_id: 'C0GENERAL', thread_ts: thread, status: 'is thinking...' });
    const streamer = client.chatStream({ channel: 'C0GENERAL', thread_ts: thread, recipient_user_id: 'U0PERSON', recipient_team_id: 'T0AUTOHUB' });
    await streamer.append({ markdown_text: 'Hi, ' });
    await streamer.stop({ markdown_text: 'done.' });
    const calls = api.calls.slice(from);
    const seen = seenByThread(calls, [thread]).get(thread)!;
    expect(seen.first).toBe(calls.find((c) => c.method === 'assistant.threads.setStatus')!.at);
    expect(seen.last).toBe(calls.find((c) => c.method === 'chat.stopStream')!.at);
    expect(seen.whole).toBe(true);
  });

  it('a stream started and not stopped is not whole, and its first words are its first sign', () => {
    const seen = seenByThread(
      [call('chat.startStream', 10, { channel: 'C1', thread_ts: 'T1' }, ok({ ts: 'S1' })), call('chat.appendStream', 20, { channel: 'C1', ts: 'S1' })],
      ['T1'],
    ).get('T1');
    expect(seen).toMatchObject({
      first: 10,
      last: 20,
      whole: false,
      calls: [
        ['chat.startStream', 10],
        ['chat.appendStream', 20],
      ],
    });
  });

  it("an empty status clears and shows nothing; a refused call shows nothing; another thread's calls are not this one's", () => {
    const seen = seenByThread(
      [
        call('assistant.threads.setStatus', 5, { channel_id: 'C1', thread_ts: 'T1', status: '' }),
        call('chat.postMessage', 6, { channel: 'C1', thread_ts: 'T1' }, { ok: false, error: 'ratelimited' }),
        call('chat.postMessage', 7, { channel: 'C1', thread_ts: 'T1' }, { ok: false }, 429),
        call('chat.postMessage', 8, { channel: 'C1', thread_ts: 'T2' }, ok({ ts: 'P2' })),
        call('chat.postMessage', 9, { channel: 'C1', thread_ts: 'T1' }, ok({ ts: 'P1' })),
        call('chat.update', 12, { channel: 'C1', ts: 'P1' }),
      ],
      ['T1'],
    );
    expect(seen.get('T1')).toMatchObject({ first: 9, last: 12, whole: true });
    expect(seen.has('T2')).toBe(false);
  });

  it('a streamed answer is whole only once its stream stops, whatever else is posted in the thread meanwhile', () => {
    const started = call('chat.startStream', 10, { channel: 'C1', thread_ts: 'T1' }, ok({ ts: 'S1' }));
    const note = call('chat.postMessage', 15, { channel: 'C1', thread_ts: 'T1' }, ok({ ts: 'P1' }));
    expect(seenByThread([started, note], ['T1']).get('T1')).toMatchObject({ first: 10, last: 15, whole: false });
    const stopped = call('chat.stopStream', 30, { channel: 'C1', ts: 'S1' });
    expect(seenByThread([started, note, stopped], ['T1']).get('T1')).toMatchObject({ first: 10, last: 30, whole: true });
  });

  it('a mention nothing reached Slack for has no sign and is not whole', () => {
    expect(seenByThread([], ['T9']).get('T9')).toEqual({ whole: false, calls: [] });
  });
});

describe('store requests waited on in turn', () => {
  it('requests closer than half a round trip went together; farther apart, one waited for the other', () => {
    expect(inTurn([], 40)).toBe(0);
    expect(inTurn([100, 101, 102], 40)).toBe(1);
    expect(inTurn([100, 141, 142, 185], 40)).toBe(3);
    expect(inTurn([185, 100, 141], 40)).toBe(3);
  });
});
