/**
 * Section `stream`: a model-like stream (60 chunks of 20 characters, one every
 * 50 ms) written into one Slack message, through the real WebClient and the
 * rate-limit fetch, against the fake Web API: time until the first chunk is
 * visible, and appends per second against chat.appendStream's Tier 4 (about
 * 100 a minute, 1.7 a second), beside web-api's own `client.chatStream()`
 * helper (a user's first choice), in one run.
 */
import { WebClient } from '@slack/web-api';
import { ReplyWriter } from '../lib/turn/index.js';
import { startFakeWebApi } from '../drill/sim/fake-web-api.js';
import { createRateLimitFetch } from '../lib/ratelimit/index.js';
import { fmt, printTable } from './stats.js';

const CHUNKS = 60;
const EVERY_MS = 50;
const TIER4_PER_S = 100 / 60;

const chunk = (i: number) => `chunk ${String(i).padStart(3, '0')} of text.. `;
const WHOLE = Array.from({ length: CHUNKS }, (_, i) => chunk(i)).join('');

async function* model(): AsyncIterable<string> {
  for (let i = 0; i < CHUNKS; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, EVERY_MS));
    yield chunk(i);
  }
}

export async function benchStream(): Promise<void> {
  const api = await startFakeWebApi();
  const client = new WebClient('xoxb-bench', { slackApiUrl: api.url, retryConfig: { retries: 0 }, fetch: createRateLimitFetch() });
  const rows: string[][] = [['writer', 'first chunk visible ms', 'appends', 'appends/s', 'Tier 4 allows /s', 'total s', 'whole text once']];
  const measure = async (name: string, thread: string, write: () => Promise<void>) => {
    const before = api.calls.length;
    const started = performance.now();
    const startedAt = Date.now();
    await write();
    const seconds = (performance.now() - started) / 1000;
    const calls = api.calls.slice(before);
    const start = calls.find((c) => c.method === 'chat.startStream');
    const appends = calls.filter((c) => c.method === 'chat.appendStream').length;
    const streams = [...api.streams.values()].filter((st) => st.thread_ts === thread);
    const whole = streams.length === 1 && streams[0]!.text === WHOLE;
    rows.push([
      name,
      start ? fmt(start.at - startedAt, 0) : '-',
      String(appends),
      fmt(appends / seconds, 2),
      fmt(TIER4_PER_S, 2),
      fmt(seconds, 2),
      whole ? 'yes' : 'no',
    ]);
  };
  await measure("autohub's ReplyWriter (appends at most once a second)", '1700700000.000001', async () => {
    // Outside a DM Slack wants the stream's recipient (chat.startStream's missing_recipient_*).
    const target = { channel: 'C0BENCH', threadTs: '1700700000.000001', eventId: 'Ev-bench-stream', recipientUser: 'U0PERSON', recipientTeam: 'T0AUTOHUB' };
    await new ReplyWriter(client, target, undefined, { closed: () => false }).write(model());
  });
  await measure("web-api's client.chatStream() helper (buffers about 256 characters)", '1700700000.000002', async () => {
    const streamer = client.chatStream({ channel: 'C0BENCH', thread_ts: '1700700000.000002', recipient_user_id: 'U0PERSON', recipient_team_id: 'T0AUTOHUB' });
    for await (const chunk of model()) await streamer.append({ markdown_text: chunk });
    await streamer.stop();
  });
  printTable(`stream: ${CHUNKS} chunks of 20 characters, one every ${EVERY_MS} ms (${fmt((CHUNKS * EVERY_MS) / 1000, 1)} s of model output)`, rows);
  await api.close();
}
