/**
 * Section `load`: the highest mention rate one copy sustains with its ack p99
 * under 1 s (Slack's deadline is 3 s; the edge gives a copy 1.4 s), with the
 * claim in a real Redis behind the REST bridge: on an idle machine and with
 * one core kept busy by another process. Mentions are sent open-loop, at the
 * rate, whatever the answers do. Then: memory per thousand turns waiting for
 * a slot (acked, leases kept alive, posts held).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { startFakeWebApi, type FakeWebApi } from '../drill/sim/fake-web-api.js';
import { startRedis } from '../drill/sim/redis-server.js';
import { deliver, mentionEnvelope } from '../drill/sim/slack-events.js';
import { startUpstashBridge, type UpstashBridge } from '../drill/sim/upstash-bridge.js';
import { BENCH_SECRET as SECRET, copyEnv, startBenchCopy } from './children.js';
import { fmt, printTable, summarize } from './stats.js';

const RATES = [50, 100, 200, 300, 400, 600];
const SECONDS = 4;
let batch = 0;

function busyCore(): ChildProcess {
  return spawn(
    process.execPath,
    [
      '-e',
      "process.stdin.on('end', () => process.exit(0)); process.stdin.resume(); setImmediate(function spin() { const t = Date.now(); while (Date.now() - t < 50); setImmediate(spin); });",
    ],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
}

async function atRate(url: string, rate: number): Promise<{ p99: number; failures: number }> {
  batch += 1;
  const total = rate * SECONDS;
  const started = performance.now();
  const latencies: number[] = [];
  let failures = 0;
  const sends: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const ts = `${1_700_400_000 + batch}.${String(i).padStart(6, '0')}`;
    sends.push(
      (async () => {
        const t = performance.now();
        try {
          const response = await deliver(url, mentionEnvelope({ eventId: `Ev-load-${batch}-${i}`, ts }), {
            signingSecret: SECRET,
            signal: AbortSignal.timeout(3000),
          });
          await response.arrayBuffer();
          if (response.status !== 200) failures += 1;
          latencies.push(performance.now() - t);
        } catch {
          failures += 1;
          latencies.push(3000);
        }
      })(),
    );
  }
  await Promise.all(sends);
  return { p99: summarize(latencies).p99, failures };
}

async function sustained(api: FakeWebApi, bridge: UpstashBridge, busy: boolean): Promise<{ rate: number; p99: number; rows: string[][] }> {
  const copy = await startBenchCopy(copyEnv('hub', api, bridge));
  const noise = busy ? busyCore() : undefined;
  const rows: string[][] = [];
  let best = { rate: 0, p99: 0 };
  try {
    await atRate(`${copy.url}/slack/events`, 50); // warm-up
    for (const rate of RATES) {
      const r = await atRate(`${copy.url}/slack/events`, rate);
      rows.push([busy ? 'one core busy' : 'idle', String(rate), fmt(r.p99, 0), String(r.failures)]);
      if (r.p99 >= 1000 || r.failures > 0) break;
      best = { rate, p99: r.p99 };
      // Let the backlog of turns drain before the next step.
      while ((await copy.usage()).waiting > 0) await new Promise((res) => setTimeout(res, 100));
    }
  } finally {
    noise?.kill('SIGKILL');
    await copy.stop();
  }
  return { ...best, rows };
}

async function memoryPerThousandWaiting(api: FakeWebApi, bridge: UpstashBridge): Promise<{ perThousandKb: number; waiting: number }> {
  const copy = await startBenchCopy(copyEnv('hub', api, bridge, { AUTOHUB_MAX_TURNS: '1' }));
  try {
    api.holdPosts(600_000);
    await deliver(`${copy.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-mem-first', ts: '1700500000.000000' }), { signingSecret: SECRET });
    while (api.held < 1) await new Promise((r) => setTimeout(r, 10));
    const before = await copy.usage();
    for (let i = 1; i <= 1000; i++) {
      await deliver(`${copy.url}/slack/events`, mentionEnvelope({ eventId: `Ev-mem-${i}`, ts: `1700500000.${String(i).padStart(6, '0')}` }), {
        signingSecret: SECRET,
      });
    }
    const after = await copy.usage();
    return { perThousandKb: ((after.heapKb - before.heapKb) * 1000) / Math.max(1, after.waiting - before.waiting), waiting: after.waiting };
  } finally {
    api.holdPosts(0);
    await copy.kill();
  }
}

export async function benchLoad(): Promise<void> {
  const api = await startFakeWebApi();
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  try {
    const idle = await sustained(api, bridge, false);
    const busy = await sustained(api, bridge, true);
    printTable(`load: one copy, Redis claim over the REST bridge, ${SECONDS} s at each rate, open-loop`, [
      ['machine', 'mentions/s', 'ack p99 ms', 'failed'],
      ...idle.rows,
      ...busy.rows,
    ]);
    console.log(
      `highest rate with ack p99 under 1 s: idle ${idle.rate}/s (p99 ${fmt(idle.p99, 0)} ms), one core busy ${busy.rate}/s (p99 ${fmt(busy.p99, 0)} ms)`,
    );
    const memory = await memoryPerThousandWaiting(api, bridge);
    console.log(
      `memory: ${fmt(memory.perThousandKb / 1024, 1)} MB of heap per 1,000 turns waiting for a slot (${memory.waiting} waiting, AUTOHUB_MAX_TURNS=1, posts held)`,
    );
  } finally {
    await bridge.close();
    await redis.stop();
    await api.close();
  }
}
