/**
 * One receiver under load, in its own process so its peak RSS is its own,
 * all running the same listeners and posting the same reply:
 *   `autohub` (FailoverReceiver with the real-Redis claim), `autohub-memory`
 *   (in-process claim), `stock` (Bolt's HTTPReceiver, no claim at all), and
 *   `stock-setnx`: what a user would write instead, stock Bolt plus a global
 *   middleware doing SET NX on @upstash/redis with its default settings.
 */
import { App, HTTPReceiver } from '@slack/bolt';
import { Redis } from '@upstash/redis';
import { WebClient } from '@slack/web-api';
import { createAutohub } from '../app/create-app.js';
import { resilientAuthorize } from '../app/authorize.js';
import { parseAppConfig } from '../lib/config/index.js';
import { silentLogger, slackLogger } from '../lib/log/index.js';

const [kind, port, webApiUrl, upstashUrl, upstashToken] = process.argv.slice(2);
const secret = 'bench-secret';

if (kind === 'autohub' || kind === 'autohub-memory') {
  const config = parseAppConfig({
    AUTOHUB_ROLE: 'hub',
    SLACK_SIGNING_SECRET: secret,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_API_URL: webApiUrl,
    PORT: port,
    ...(kind === 'autohub' ? { UPSTASH_REDIS_REST_URL: upstashUrl, UPSTASH_REDIS_REST_TOKEN: upstashToken } : {}),
  });
  await createAutohub({ config, log: silentLogger }).start();
} else {
  const clientOptions = { slackApiUrl: webApiUrl, retryConfig: { retries: 0 }, logger: slackLogger(silentLogger) };
  const app = new App({
    receiver: new HTTPReceiver({ signingSecret: secret, endpoints: '/slack/events', logger: slackLogger(silentLogger) }),
    authorize: resilientAuthorize(new WebClient(undefined, clientOptions), 'xoxb-bench'),
    clientOptions,
    logger: slackLogger(silentLogger),
  });
  if (kind === 'stock-setnx') {
    const redis = new Redis({ url: upstashUrl!, token: upstashToken! });
    app.use(async ({ body, next }) => {
      const id = (body as { event_id?: string }).event_id;
      if (id && (await redis.set(`dedupe:${id}`, 1, { nx: true, ex: 86_400 })) === null) return;
      await next();
    });
  }
  // Stock Bolt has no turn handle: the same reply, posted as a user would write it.
  app.event('app_mention', async ({ event, client }) => {
    await client.chat.postMessage({
      channel: event.channel,
      thread_ts: event.thread_ts ?? event.ts,
      text: `Hi <@${event.user}>, I got that. Answered by the hub (bench).`,
    });
  });
  await app.start(Number(port));
}
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  const usage = process.resourceUsage();
  process.stdout.write(`${JSON.stringify({ maxRssKb: usage.maxRSS, cpuUs: usage.userCPUTime + usage.systemCPUTime })}\n`);
  process.exit(0);
});
