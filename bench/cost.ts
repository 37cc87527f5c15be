/**
 * Section `cost`: what the shared store costs, as Upstash bills it (every
 * command, each one in a pipeline, a script as one), measured at the REST
 * bridge in front of a real redis-server, beside main's schedule:
 *   - two idle copies: commands a day, counted over `idleSeconds` and extrapolated;
 *   - per mention, by kind (event, DM, command): commands, store round trips
 *     before the ack and before the reply is posted, the copy's CPU;
 *   - a dead owner's turns: how long after a SIGKILL another copy answers;
 *   - CPU per store command, this client against @upstash/redis's defaults.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from '@upstash/redis';
import { startFakeWebApi, type FakeWebApi } from '../drill/sim/fake-web-api.js';
import { startRedis } from '../drill/sim/redis-server.js';
import { commandForm, deliver, mentionEnvelope } from '../drill/sim/slack-events.js';
import { startUpstashBridge, type UpstashBridge } from '../drill/sim/upstash-bridge.js';
import { createUpstashClient } from '../lib/store/index.js';
import { startBenchCopy, type BenchCopy } from './children.js';
import { fmt, printTable, summarize } from './stats.js';

const SECRET = 'bench-secret';
const TOKEN = 'bench-health-token-0123456789';
const DAY_S = 86_400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function copyEnv(role: 'hub' | 'cloud', api: FakeWebApi, bridge: UpstashBridge, extra: Record<string, string> = {}) {
  return {
    AUTOHUB_ROLE: role,
    AUTOHUB_INSTANCE: `bench-${role}`,
    PORT: '0',
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_API_URL: api.url,
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: bridge.token,
    AUTOHUB_HEALTH_TOKEN: TOKEN,
    ...extra,
  };
}

/** Hub and cloud copy, each watching the other when `peers` (the default deployment). */
async function pair(api: FakeWebApi, bridge: UpstashBridge, extra: Record<string, string>, peers: boolean): Promise<[BenchCopy, BenchCopy]> {
  // The peer URL is known only once the other copy listens: the cloud starts first, the hub watches it,
  // then the cloud is restarted watching the hub (its port is fixed by then).
  const cloud0 = await startBenchCopy(copyEnv('cloud', api, bridge, extra));
  const hub = await startBenchCopy(copyEnv('hub', api, bridge, { ...extra, ...(peers ? { AUTOHUB_PEER_URL: cloud0.url } : {}) }));
  if (!peers) return [hub, cloud0];
  await cloud0.stop();
  const port = new URL(cloud0.url).port;
  const cloud = await startBenchCopy(copyEnv('cloud', api, bridge, { ...extra, PORT: port, AUTOHUB_PEER_URL: hub.url }));
  return [hub, cloud];
}

async function idle(idleSeconds: number): Promise<string[][]> {
  const api = await startFakeWebApi();
  const setups: Array<{ name: string; extra: Record<string, string>; peers: boolean }> = [
    { name: 'autohub defaults: a look every 120 s, peers watched over HTTP', extra: {}, peers: true },
    { name: "main's schedule on this code: a look every 5 s", extra: { AUTOHUB_REAPER_MS: '5000' }, peers: false },
  ];
  const running = await Promise.all(
    setups.map(async (s) => {
      const redis = await startRedis();
      const bridge = await startUpstashBridge({ redisPort: redis.port });
      const copies = await pair(api, bridge, s.extra, s.peers);
      return { ...s, redis, bridge, copies };
    }),
  );
  // Start-up (a ping and a first look each) is not idle cost.
  await sleep(2_000);
  const before = running.map((r) => r.bridge.commands);
  await sleep(idleSeconds * 1000);
  const rows = running.map((r, i) => {
    const perDay = ((r.bridge.commands - before[i]!) / idleSeconds) * DAY_S;
    return [r.name, String(r.bridge.commands - before[i]!), `${idleSeconds} s`, fmt(perDay, 0), `${fmt((perDay * 30) / 500_000 * 100, 0)}%`];
  });
  // main: a reaper every 5 s plus a PING and a SET every 30 s, per copy.
  const mainPerDay = 2 * (DAY_S / 5 + (2 * DAY_S) / 30);
  rows.push(['main as shipped (computed: reaper 5 s + PING and SET every 30 s, two copies)', '-', '-', fmt(mainPerDay, 0), `${fmt((mainPerDay * 30) / 500_000 * 100, 0)}%`]);
  for (const r of running) {
    await Promise.all(r.copies.map((c) => c.stop()));
    await r.bridge.close();
    await r.redis.stop();
  }
  await api.close();
  return rows;
}

interface KindFigures {
  kind: string;
  commands: number;
  beforeAck: number;
  beforePost: number;
  cpuUs: number;
}

async function perMention(n: number): Promise<KindFigures[]> {
  const api = await startFakeWebApi();
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  const [hub, cloud] = await pair(api, bridge, {}, true);
  const events = `${hub.url}/slack/events`;
  const count = (from: number, to: number) => bridge.requestTimes.filter((t) => t >= from && t <= to).length;
  const kinds: Array<{ kind: string; send: (i: number) => Promise<{ sentAt: number; ackAt: number; ts?: string }> }> = [
    {
      kind: 'event (app_mention)',
      send: async (i) => {
        const ts = `1700100000.${String(i).padStart(6, '0')}`;
        const sentAt = Date.now();
        await (await deliver(events, mentionEnvelope({ eventId: `Ev-cost-m-${i}`, ts }), { signingSecret: SECRET })).arrayBuffer();
        return { sentAt, ackAt: Date.now(), ts };
      },
    },
    {
      kind: 'DM (message.im)',
      send: async (i) => {
        const ts = `1700200000.${String(i).padStart(6, '0')}`;
        const body = mentionEnvelope({ eventId: `Ev-cost-d-${i}`, ts, type: 'message', channelType: 'im', channel: 'D0BENCH' });
        const sentAt = Date.now();
        await (await deliver(events, body, { signingSecret: SECRET })).arrayBuffer();
        return { sentAt, ackAt: Date.now(), ts };
      },
    },
    {
      kind: 'command (/autohub)',
      send: async (i) => {
        const sentAt = Date.now();
        await (await deliver(events, commandForm({ triggerId: `trig-cost-${i}` }), { signingSecret: SECRET })).arrayBuffer();
        return { sentAt, ackAt: Date.now() };
      },
    },
  ];
  /** Until the store has had no request for 50 ms: the last turn's finish is in. */
  const quiet = async () => {
    let seen = -1;
    while (seen !== bridge.requests) {
      seen = bridge.requests;
      await sleep(50);
    }
  };
  const out: KindFigures[] = [];
  // Warm-up: Bolt's first authorize, the JIT, the keep-alive sockets.
  for (const { send } of kinds) for (let i = 0; i < 20; i++) await send(100_000 + i);
  for (const { kind, send } of kinds) {
    await quiet();
    const commandsBefore = bridge.commands;
    const cpuBefore = (await hub.usage()).cpuUs;
    let beforeAck = 0;
    let beforePost = 0;
    for (let i = 0; i < n; i++) {
      const { sentAt, ackAt, ts } = await send(i);
      beforeAck += count(sentAt, ackAt);
      if (ts) {
        let post = api.posts().find((c) => c.params.thread_ts === ts);
        while (!post) {
          await sleep(2);
          post = api.posts().find((c) => c.params.thread_ts === ts);
        }
        beforePost += count(sentAt, post.at);
      }
      await quiet();
    }
    const cpuAfter = (await hub.usage()).cpuUs;
    out.push({ kind, commands: (bridge.commands - commandsBefore) / n, beforeAck: beforeAck / n, beforePost: beforePost / n, cpuUs: (cpuAfter - cpuBefore) / n });
  }
  await Promise.all([hub.stop(), cloud.stop()]);
  await bridge.close();
  await redis.stop();
  await api.close();
  return out;
}

/** Turns in flight on a hub that is SIGKILLed: time from the kill to each reply, answered by the cloud copy. */
async function takeover(rounds: number, perRound: number): Promise<number[]> {
  const api = await startFakeWebApi();
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  let [hub, cloud] = await pair(api, bridge, {}, true);
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    api.holdPosts(120_000);
    const tss: string[] = [];
    for (let i = 0; i < perRound; i++) {
      const ts = `17003${round}0000.${String(i).padStart(6, '0')}`;
      tss.push(ts);
      await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: `Ev-take-${round}-${i}`, ts }), { signingSecret: SECRET });
    }
    while (api.held < perRound) await sleep(10);
    await hub.kill();
    const killedAt = Date.now();
    api.holdPosts(0);
    const pending = new Set(tss);
    while (pending.size > 0 && Date.now() - killedAt < 180_000) {
      for (const ts of pending) {
        const post = api.posts().find((c) => c.params.thread_ts === ts);
        if (post) {
          samples.push(post.at - killedAt);
          pending.delete(ts);
        }
      }
      await sleep(20);
    }
    // The hub comes back, watching the cloud again, for the next round.
    const port = new URL(hub.url).port;
    hub = await startBenchCopy(copyEnv('hub', api, bridge, { PORT: port, AUTOHUB_PEER_URL: cloud.url }));
  }
  await Promise.all([hub.stop(), cloud.stop()]);
  await bridge.close();
  await redis.stop();
  await api.close();
  return samples;
}

/** CPU of the client side of one store command, the bridge and Redis in another process. */
async function cpuPerCommand(n: number): Promise<string[][]> {
  const child = fork(fileURLToPath(new URL('./bridge-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const { url, token } = await new Promise<{ url: string; token: string }>((resolve) => child.once('message', (m) => resolve(m as { url: string; token: string })));
  const clients: Array<[string, () => Promise<unknown>]> = [
    ['autohub client: node:http keep-alive requester, fresh fuse per request', (() => {
      const c = createUpstashClient({ url, token }, 1000);
      return () => c.get('bench:key');
    })()],
    ['@upstash/redis defaults (fetch, base64, auto-pipelining)', (() => {
      const c = new Redis({ url, token, enableTelemetry: false });
      return () => c.get('bench:key');
    })()],
  ];
  const rows: string[][] = [];
  for (const [name, run] of clients) {
    for (let i = 0; i < 200; i++) await run();
    const started = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await run();
    const used = process.cpuUsage(started);
    const wall = performance.now() - t0;
    rows.push([name, fmt((used.user + used.system) / n / 1000, 3), fmt(wall / n, 3)]);
  }
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return rows;
}

export async function benchCost(options: { idleSeconds?: number; mentions?: number } = {}): Promise<void> {
  const idleSeconds = options.idleSeconds ?? 150;
  const mentions = options.mentions ?? 100;
  console.error(`bench cost: two idle pairs for ${idleSeconds} s ...`);
  const idleRows = await idle(idleSeconds);
  printTable('cost: two idle copies, Upstash commands (counted at the bridge, extrapolated to a day; free plan 500,000 a month)', [
    ['setup', 'commands', 'over', 'per day', 'of the free plan'],
    ...idleRows,
  ]);
  console.error(`bench cost: ${mentions} mentions of each kind ...`);
  const kinds = await perMention(mentions);
  printTable(`cost: per mention, ${mentions} of each kind one after another, hub and cloud copy on one store (main: 4-6 commands, 1 round trip before the ack, 3 before the reply)`, [
    ['kind', 'commands', 'round trips before the ack', 'before the reply is posted', 'hub CPU us'],
    ...kinds.map((k) => [k.kind, fmt(k.commands, 2), fmt(k.beforeAck, 2), k.kind.startsWith('command') ? '-' : fmt(k.beforePost, 2), fmt(k.cpuUs, 0)]),
  ]);
  console.error('bench cost: takeovers after a SIGKILL (defaults: lease 10 s, peer checked every 5 s) ...');
  const taken = summarize(await takeover(2, 8));
  printTable("cost: a dead owner's turns answered by the other copy, seconds after the SIGKILL (main: within 15 s, at 46,000 idle commands a day)", [
    ['setup', 'turns', 'p50 s', 'p99 s', 'aim'],
    ['defaults with AUTOHUB_PEER_URL', String(taken.n), fmt(taken.p50 / 1000, 1), fmt(taken.p99 / 1000, 1), '<= 30 s'],
    ['defaults without a peer URL (computed: lease + one idle look)', '-', '-', fmt((10_000 + 120_000 * 1.1) / 1000, 0), 'stated in README'],
  ]);
  printTable('cost: CPU per store command on the client, 2,000 GETs, bridge and Redis in another process', [
    ['client', 'CPU ms per command', 'wall ms per command'],
    ...(await cpuPerCommand(2000)),
  ]);
}
