/**
 * Stock Bolt under the turn bench: HTTPReceiver, one token, and the reply a
 * user would stream with web-api's `client.chatStream()`: the demo turn's
 * four chunks, appended one by one, then stopped. Plain node, its own process.
 * Over IPC: `usage` -> its own CPU and memory, and `busy` (turns not yet done).
 *
 * With `claimUrl` and `status`: what a user would write on top for two of
 * autohub's jobs, no duplicate answers and a thinking status: a global
 * middleware claiming each event id with `SET NX` (@upstash/redis defaults,
 * one store command), and `assistant.threads.setStatus` before the stream.
 */
import bolt from '@slack/bolt';
import { Redis } from '@upstash/redis';

const { App, HTTPReceiver, LogLevel } = bolt;
const { secret, apiUrl, claimUrl, claimToken, status } = JSON.parse(process.argv[2] ?? '{}');
const quiet = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => LogLevel.ERROR, setName() {} };
const receiver = new HTTPReceiver({ signingSecret: secret, endpoints: '/slack/events', logger: quiet });
const app = new App({ receiver, token: 'xoxb-bench', clientOptions: { slackApiUrl: apiUrl, retryConfig: { retries: 0 } }, logger: quiet });
if (claimUrl) {
  const redis = new Redis({ url: claimUrl, token: claimToken });
  app.use(async ({ body, next }) => {
    const id = body.event_id;
    if (id && (await redis.set(`dedupe:${id}`, 1, { nx: true, ex: 86_400 })) === null) return;
    await next();
  });
}
let started = 0;
let done = 0;
app.event('app_mention', async ({ event, client, body }) => {
  started += 1;
  try {
    const thread_ts = event.thread_ts ?? event.ts;
    if (status) await client.assistant.threads.setStatus({ channel_id: event.channel, thread_ts, status: 'is thinking...' });
    const streamer = client.chatStream({
      channel: event.channel,
      thread_ts,
      recipient_user_id: event.user,
      recipient_team_id: event.user_team ?? body.team_id,
    });
    for (const chunk of [`Hi <@${event.user}>, `, 'I got that. ', 'Answered by ', 'the hub (bench-hub).']) await streamer.append({ markdown_text: chunk });
    await streamer.stop();
  } finally {
    done += 1;
  }
});
const server = await app.start(0);
process.on('message', (message) => {
  if (message === 'gc') globalThis.gc?.();
  // Polled while a batch drains: its answer costs the server as little as can be.
  if (message === 'busy') process.send?.({ busy: started - done });
  if (message === 'usage') {
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    process.send?.({ cpuUs: cpu.user + cpu.system, heapKb: memory.heapUsed / 1024, rssKb: memory.rss / 1024, busy: started - done });
  }
});
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
process.send?.({ ready: server.address().port });
