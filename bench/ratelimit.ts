/**
 * Section `ratelimit`: 30 chat.postMessage calls from 4 concurrent callers
 * against a fake Web API that accepts one call a second per method, as
 * Slack's per-channel posting limit does, and answers the rest with 429 and
 * a Retry-After in whole seconds (what Slack sends: the time left, rounded
 * up). The floor follows: the first call at once, then one a second, so 29 s
 * for 30 calls. Total time against the floor and requests spent inside
 * closed windows, for this client, the stock WebClient and a plain
 * exponential backoff, in one run.
 */
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { createRateLimitFetch } from '../lib/ratelimit/index.js';
import { startFakeWebApi } from '../drill/sim/fake-web-api.js';
import { silentLogger, slackLogger } from '../lib/log/index.js';
import { fmt, printTable } from './stats.js';

const quiet = slackLogger(silentLogger);

const CALLS = 30;
const CALLERS = 4;
const WINDOW_MS = 1000;

/**
 * The network under each client: records when each request left and whether
 * it was refused, so "sent after the client knew of a refusal" is measured
 * where it happens, not guessed from arrival order at the server.
 */
function recordingFetch() {
  const sends: Array<{ sentAt: number; refused: boolean }> = [];
  let firstRefusalSeenAt = Infinity;
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const entry = { sentAt: performance.now(), refused: false };
    sends.push(entry);
    const response = await fetch(input, init);
    if (response.status === 429) {
      entry.refused = true;
      firstRefusalSeenAt = Math.min(firstRefusalSeenAt, performance.now());
    }
    return response;
  }) as typeof fetch;
  const refusedAfterFirst = () => sends.filter((s) => s.refused && s.sentAt > firstRefusalSeenAt).length;
  return { recording, refusedAfterFirst };
}

/** Retries any refusal after base x 2^n ms, whatever Retry-After says. */
function exponentialFetch(network: typeof fetch, baseMs = 25, capMs = 2000): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    for (let attempt = 0; ; attempt++) {
      const response = await network(input, init);
      if (response.status !== 429 || attempt >= 10) return response;
      await response.body?.cancel();
      await new Promise((r) => setTimeout(r, Math.min(capMs, baseMs * 2 ** attempt)));
    }
  }) as typeof fetch;
}

async function run(name: string, options: (url: string, network: typeof fetch) => WebClientOptions) {
  const api = await startFakeWebApi();
  api.enforceInterval('chat.postMessage', WINDOW_MS, '429', 'whole');
  const network = recordingFetch();
  const web = new WebClient('xoxb-bench', options(api.url, network.recording));
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < CALLS) {
        next += 1;
        try {
          await web.chat.postMessage({ channel: 'C1', text: 'x' });
        } catch {
          failed += 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const posts = api.calls.filter((c) => c.method === 'chat.postMessage');
  const refused = posts.filter((c) => c.refused).length;
  const afterFirst = network.refusedAfterFirst();
  await api.close();
  return { name, seconds, refused, afterFirst, failed, accepted: posts.length - refused };
}

export async function benchRateLimit(): Promise<void> {
  const floor = ((CALLS - 1) * WINDOW_MS) / 1000;
  const results = [
    await run('autohub rate-limit fetch', (url, network) => ({
      slackApiUrl: url,
      retryConfig: { retries: 0 },
      fetch: createRateLimitFetch({ fetch: network }),
    })),
    await run('plain exponential backoff (25 ms x 2^n)', (url, network) => ({
      slackApiUrl: url,
      retryConfig: { retries: 0 },
      fetch: exponentialFetch(network),
    })),
    await run('stock WebClient (defaults)', (url, network) => ({ slackApiUrl: url, fetch: network, logger: quiet })),
  ];
  printTable(
    `ratelimit: ${CALLS} chat.postMessage from ${CALLERS} callers, 1 call a second allowed, Retry-After in whole seconds; floor ${floor.toFixed(1)} s`,
    [
      ['client', 'total s', 'x floor', 'accepted', 'failed', 'refused (inside closed windows)', 'of them sent after the first refusal was seen'],
      ...results.map((r) => [r.name, fmt(r.seconds), fmt(r.seconds / floor), String(r.accepted), String(r.failed), String(r.refused), String(r.afterFirst)]),
    ],
  );
}
