/**
 * Section `wire`: what one Web API call costs the copy that makes it, over
 * the transport a copy uses (lib/ratelimit/slack-transport.ts) and over
 * undici's `fetch` (what stock Bolt's WebClient sends with), in one run,
 * interleaved: a real WebClient posting the same `chat.postMessage` to the
 * fake Web API in a process of its own, one call at a time. Figures: this
 * process's CPU per call (the server's is not counted), and latency p50.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebClient } from '@slack/web-api';
import { createSlackTransport } from '../lib/ratelimit/index.js';
import { fmt, printTable, summarize } from './stats.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export async function benchWire(options: { calls?: number; rounds?: number } = {}): Promise<void> {
  const calls = options.calls ?? 2000;
  const rounds = options.rounds ?? 3;
  const api = fork(here('./api-child.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const { url } = await new Promise<{ url: string }>((resolve, reject) => {
      api.once('exit', (code) => reject(new Error(`the fake Web API exited with ${code}`)));
      api.once('message', (m) => resolve(m as { url: string }));
    });
    const quiet = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} };
    const clientOf = (fetch: typeof globalThis.fetch) => new WebClient('xoxb-bench', { slackApiUrl: url, retryConfig: { retries: 0 }, fetch, logger: quiet });
    const ways = [
      { name: 'the Slack transport (a copy)', client: clientOf(createSlackTransport()), cpuUs: 0, n: 0, samples: [] as number[] },
      { name: "undici's fetch (stock Bolt)", client: clientOf((input, init) => globalThis.fetch(input, init)), cpuUs: 0, n: 0, samples: [] as number[] },
    ];
    const call = (client: WebClient, i: number) =>
      client.chat.postMessage({ channel: 'C0BENCH', thread_ts: '1700000000.000100', text: `Hi <@U0BENCH>, reply ${i}.` });
    for (const way of ways) for (let i = 0; i < 200; i++) await call(way.client, i);
    for (let round = 0; round < rounds; round++) {
      for (const way of ways) {
        const cpu = process.cpuUsage();
        for (let i = 0; i < calls; i++) {
          const t = performance.now();
          await call(way.client, i);
          way.samples.push(performance.now() - t);
        }
        const used = process.cpuUsage(cpu);
        way.cpuUs += used.user + used.system;
        way.n += calls;
      }
    }
    const [wire, stock] = ways.map((w) => ({ cpu: w.cpuUs / w.n, p50: summarize(w.samples).p50 }));
    printTable(`wire: one chat.postMessage through a real WebClient, ${rounds} interleaved rounds of ${calls}, the fake Web API in its own process`, [
      ['figure', ways[0]!.name, ways[1]!.name, 'ratio'],
      ['client CPU per call (us), WebClient included', fmt(wire!.cpu, 0), fmt(stock!.cpu, 0), `${fmt(wire!.cpu / stock!.cpu)}x`],
      ['latency p50 (ms)', fmt(wire!.p50), fmt(stock!.p50), `${fmt(wire!.p50 / stock!.p50)}x`],
    ]);
  } finally {
    api.kill('SIGTERM');
  }
}
