/**
 * Section `receiver`: signed event deliveries at concurrency 1 and 32 against
 * this receiver (claim in a real Redis through the REST bridge) and against
 * Bolt's stock HTTPReceiver running the same listeners, in the same run.
 */
import { spawn } from 'node:child_process';
import { freePort } from '../drill/sim/free-port.js';
import { startFakeWebApi } from '../drill/sim/fake-web-api.js';
import { startRedis } from '../drill/sim/redis-server.js';
import { mentionEnvelope } from '../drill/sim/slack-events.js';
import { startUpstashBridge } from '../drill/sim/upstash-bridge.js';
import { signedHeaders } from '../lib/slack/index.js';
import { closedLoop } from './closed-loop.js';
import { fmt, printTable, summarize, type Summary } from './stats.js';

interface Run {
  latency: Summary;
  rps: number;
  maxRssMb: number;
  /** Server CPU (user + system) per delivery over the whole run, warm-up included. */
  cpuUsPerDelivery: number;
  failures: number;
}

let batch = 0;

async function load(url: string, total: number, concurrency: number): Promise<Omit<Run, 'maxRssMb' | 'cpuUsPerDelivery'>> {
  batch += 1;
  const requests = await Promise.all(
    Array.from({ length: total }, async (_, i) => {
      const body = JSON.stringify(mentionEnvelope({ eventId: `Ev-b${batch}-${i}`, ts: `${1_700_000_000 + batch}.${String(i).padStart(6, '0')}` }));
      return { body, headers: { 'content-type': 'application/json', ...(await signedHeaders('bench-secret', body, Date.now())) } };
    }),
  );
  const { samples, failures, seconds } = await closedLoop(requests, concurrency, async (r) => {
    const response = await fetch(url, { method: 'POST', headers: r.headers, body: r.body });
    await response.arrayBuffer();
    return response.status;
  });
  return { latency: summarize(samples), rps: total / seconds, failures };
}

async function measure(kind: 'autohub' | 'autohub-memory' | 'stock' | 'stock-setnx', args: string[], plan: Array<[number, number]>): Promise<Map<number, Run>> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/serve.ts', kind, String(port), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  while (!out.includes('ready')) {
    if (child.exitCode !== null) throw new Error(`bench server ${kind} exited`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const url = `http://127.0.0.1:${port}/slack/events`;
  await load(url, 300, 8); // warm-up
  const runs = new Map<number, Omit<Run, 'maxRssMb' | 'cpuUsPerDelivery'>>();
  for (const [concurrency, total] of plan) runs.set(concurrency, await load(url, total, concurrency));
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  const { maxRssKb, cpuUs } = JSON.parse(out.trim().split('\n').pop()!) as { maxRssKb: number; cpuUs: number };
  const delivered = 300 + plan.reduce((sum, [, total]) => sum + total, 0);
  return new Map([...runs].map(([c, r]) => [c, { ...r, maxRssMb: maxRssKb / 1024, cpuUsPerDelivery: cpuUs / delivered }]));
}

export async function benchReceiver(): Promise<void> {
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  const api = await startFakeWebApi();
  const plan: Array<[number, number]> = [
    [1, 1000],
    [32, 3000],
  ];
  try {
    const stock = await measure('stock', [api.url], plan);
    const ours = await measure('autohub', [api.url, bridge.url, bridge.token], plan);
    const memory = await measure('autohub-memory', [api.url], plan);
    const setnx = await measure('stock-setnx', [api.url, bridge.url, bridge.token], plan);
    const rows: string[][] = [['receiver', 'conc', 'p50 ms', 'p99 ms', 'req/s', 'peak RSS MB', 'CPU us/req', 'non-200', 'p50 +ms', 'req/s ratio', 'RSS ratio']];
    const row = (name: string, c: number, r: Run, base: Run) => [
      name,
      String(c),
      fmt(r.latency.p50, 3),
      fmt(r.latency.p99, 3),
      fmt(r.rps, 0),
      fmt(r.maxRssMb, 1),
      fmt(r.cpuUsPerDelivery, 0),
      String(r.failures),
      r === base ? '-' : fmt(r.latency.p50 - base.latency.p50, 3),
      fmt(r.rps / base.rps),
      fmt(r.maxRssMb / base.maxRssMb),
    ];
    for (const [concurrency] of plan) {
      const s = stock.get(concurrency)!;
      rows.push(row('Bolt HTTPReceiver (baseline)', concurrency, s, s));
      rows.push(row('FailoverReceiver + Redis claim', concurrency, ours.get(concurrency)!, s));
      rows.push(row('FailoverReceiver, in-process claim', concurrency, memory.get(concurrency)!, s));
      rows.push(row('what a user would write: stock + SET NX middleware (@upstash/redis defaults)', concurrency, setnx.get(concurrency)!, s));
    }
    printTable('receiver: signed app_mention deliveries on loopback, same listeners, ack latency', rows);
    console.log(`(Web API posts recorded by the fake: ${api.posts().length}; peak RSS is per server process over the whole run)`);
  } finally {
    await api.close();
    await bridge.close();
    await redis.stop();
  }
}
