/**
 * Section `cost`: what the shared store costs, as Upstash bills it (every
 * command, each one in a pipeline, a script as one), measured at the REST
 * bridge in front of a real redis-server, beside main's schedule:
 *   - two idle copies: commands a day, counted over `idleSeconds` and extrapolated;
 *   - per mention, by kind (event, DM, command): commands, store round trips
 *     before the ack and before the reply is posted, the copy's CPU;
 *   - two idle copies proving the legs through an edge (AUTOHUB_VERIFY_EVERY_MS): commands a check, a day at 30 min;
 *   - per mention through the edge: the extra look its hint costs the other copy, alone and in a burst;
 *   - a dead owner's turns: how long after a SIGKILL another copy answers, with the peer URL, and with only
 *     the edge's hint (no peer URL, no traffic after);
 *   - a schedule's firing: the turn's own commands, and what the other copy's try adds (bench/schedule-cost.ts);
 *   - a turn parked on ctx.ask: to park, while it waits, the click's resumed run (bench/ask-cost.ts);
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
import { createEdgeRouter, parseEdgeSettings, type EdgeRouter } from '../lib/edge/index.js';
import { serveFetchHandler } from '../lib/edge-node/index.js';
import type { AddressInfo } from 'node:net';
import { BENCH_SECRET as SECRET, copyEnv, startBenchCopy, type BenchCopy } from './children.js';
import { fmt, printTable, summarize } from './stats.js';
import { scheduleCost } from './schedule-cost.js';
import { askCost } from './ask-cost.js';

const DAY_S = 86_400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** A Node edge in front of a pair; listening before the copies start (they need its URL), routing once `route` is called. */
async function startEdge(): Promise<{ url: string; route(hubUrl: string, cloudUrl: string): void; close(): void }> {
  let router: EdgeRouter | undefined;
  const server = serveFetchHandler(async (request, ctx) => (router ? router.handle(request, ctx) : new Response(null, { status: 503 })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    route: (hubUrl, cloudUrl) => {
      router = createEdgeRouter({ settings: parseEdgeSettings({ HUB_URL: hubUrl, CLOUD_URL: cloudUrl, SLACK_SIGNING_SECRET: SECRET }) });
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The leg checks' default period (AUTOHUB_VERIFY_EVERY_MS), and the one the bench measures them at. */
const VERIFY_DEFAULT_MS = 30 * 60_000;
const VERIFY_BENCH_MS = 5_000;

async function idle(idleSeconds: number): Promise<string[][]> {
  const api = await startFakeWebApi();
  const setups: Array<{ name: string; extra: Record<string, string>; peers: boolean; legs?: boolean }> = [
    { name: 'autohub defaults: a look every 120 s, peers watched over HTTP', extra: {}, peers: true },
    { name: "main's schedule on this code: a look every 5 s", extra: { AUTOHUB_REAPER_MS: '5000' }, peers: false },
    // The leg checks at 5 s (one check every 5 s instead of every 30 min), through an edge: the difference from
    // the defaults' pair is what the checks cost, counted per check and scaled to the default period below.
    { name: `defaults + legs proven through the edge, measured at AUTOHUB_VERIFY_EVERY_MS=${VERIFY_BENCH_MS}`, extra: {}, peers: true, legs: true },
  ];
  const running = await Promise.all(
    setups.map(async (s) => {
      const redis = await startRedis();
      const bridge = await startUpstashBridge({ redisPort: redis.port });
      const edge = s.legs ? await startEdge() : undefined;
      const legs: Record<string, string> = edge ? { AUTOHUB_EDGE_URL: edge.url, AUTOHUB_VERIFY_EVERY_MS: String(VERIFY_BENCH_MS) } : {};
      const copies = await pair(api, bridge, { ...s.extra, ...legs }, s.peers);
      edge?.route(copies[0].url, copies[1].url);
      return { ...s, redis, bridge, copies, edge };
    }),
  );
  // Start-up (a ping and a first look each) is not idle cost.
  await sleep(2_000);
  const before = running.map((r) => r.bridge.commands);
  await sleep(idleSeconds * 1000);
  const rows = running.map((r, i) => {
    const perDay = ((r.bridge.commands - before[i]!) / idleSeconds) * DAY_S;
    return [r.name, String(r.bridge.commands - before[i]!), `${idleSeconds} s`, fmt(perDay, 0), `${fmt(((perDay * 30) / 500_000) * 100, 0)}%`];
  });
  // Per check: what the legs' pair spent beyond the defaults' pair, over the checks that fitted in the window.
  const spent = running.map((r, i) => r.bridge.commands - before[i]!);
  const perCheck = (spent[2]! - spent[0]!) / (idleSeconds / (VERIFY_BENCH_MS / 1000));
  const withLegs = (spent[0]! / idleSeconds) * DAY_S + perCheck * (DAY_S / (VERIFY_DEFAULT_MS / 1000));
  rows.push([
    `autohub defaults + legs proven every ${VERIFY_DEFAULT_MS / 60_000} min (the default; ${fmt(perCheck, 1)} commands a check, measured above)`,
    '-',
    '-',
    fmt(withLegs, 0),
    `${fmt(((withLegs * 30) / 500_000) * 100, 0)}% (aim: at most 3,000 a day)`,
  ]);
  // main: a reaper every 5 s plus a PING and a SET every 30 s, per copy.
  const mainPerDay = 2 * (DAY_S / 5 + (2 * DAY_S) / 30);
  rows.push([
    'main as shipped (computed: reaper 5 s + PING and SET every 30 s, two copies)',
    '-',
    '-',
    fmt(mainPerDay, 0),
    `${fmt(((mainPerDay * 30) / 500_000) * 100, 0)}%`,
  ]);
  for (const r of running) {
    await Promise.all(r.copies.map((c) => c.stop()));
    r.edge?.close();
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
    out.push({
      kind,
      commands: (bridge.commands - commandsBefore) / n,
      beforeAck: beforeAck / n,
      beforePost: beforePost / n,
      cpuUs: (cpuAfter - cpuBefore) / n,
    });
  }
  await Promise.all([hub.stop(), cloud.stop()]);
  await bridge.close();
  await redis.stop();
  await api.close();
  return out;
}

/**
 * Turns in flight on a hub that is SIGKILLed: time from the kill to each reply, answered by the cloud copy.
 * `peer`: the defaults with AUTOHUB_PEER_URL, deliveries straight to the hub. `hint`: no peer URL, the
 * deliveries through an edge, nothing sent after the kill: only the edge's hint wakes the cloud copy.
 */
async function takeover(rounds: number, perRound: number, via: 'peer' | 'hint'): Promise<number[]> {
  const api = await startFakeWebApi();
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  const peers = via === 'peer';
  let [hub, cloud] = await pair(api, bridge, {}, peers);
  const edge = peers ? undefined : await startEdge();
  edge?.route(hub.url, cloud.url);
  const target = edge?.url ?? hub.url;
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    api.holdPosts(120_000);
    const tss: string[] = [];
    for (let i = 0; i < perRound; i++) {
      const ts = `17003${round}${peers ? 0 : 1}000.${String(i).padStart(6, '0')}`;
      tss.push(ts);
      await deliver(`${target}/slack/events`, mentionEnvelope({ eventId: `Ev-take-${via}-${round}-${i}`, ts }), { signingSecret: SECRET });
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
    // The hub comes back (watching the cloud again, with peers) for the next round.
    const port = new URL(hub.url).port;
    hub = await startBenchCopy(copyEnv('hub', api, bridge, { PORT: port, ...(peers ? { AUTOHUB_PEER_URL: cloud.url } : {}) }));
  }
  edge?.close();
  await Promise.all([hub.stop(), cloud.stop()]);
  await bridge.close();
  await redis.stop();
  await api.close();
  return samples;
}

/**
 * What the edge's hint costs: store commands per mention sent through the edge against the same mention
 * sent straight to the hub (no hint), alone (one hinted look each) and in a burst (the looks coalesce:
 * lookIn only moves a look earlier). A 1 s lease, so each hinted look comes 1.25 s after its ack; a look
 * is one command whatever the lease.
 */
async function hintCost(alone: number, burst: number): Promise<string[][]> {
  const api = await startFakeWebApi();
  const redis = await startRedis();
  const bridge = await startUpstashBridge({ redisPort: redis.port });
  const [hub, cloud] = await pair(api, bridge, { AUTOHUB_LEASE_MS: '1000', AUTOHUB_LEASE_RENEW_MS: '300' }, false);
  const edge = await startEdge();
  edge.route(hub.url, cloud.url);
  /** Until the store has had no request for `ms`: the last hinted look is in. */
  const quietFor = async (ms: number) => {
    for (let seen = -1; seen !== bridge.requests; ) {
      seen = bridge.requests;
      await sleep(ms);
    }
  };
  let n = 0;
  const run = async (target: string, count: number, gapMs: number): Promise<number> => {
    await quietFor(1_600);
    const before = bridge.commands;
    for (let i = 0; i < count; i++) {
      const ts = `1700400000.${String(++n).padStart(6, '0')}`;
      await (await deliver(`${target}/slack/events`, mentionEnvelope({ eventId: `Ev-hint-${n}`, ts }), { signingSecret: SECRET })).arrayBuffer();
      await sleep(gapMs);
    }
    await quietFor(1_600);
    return (bridge.commands - before) / count;
  };
  // Warm-up: Bolt's first authorize, the JIT, the keep-alive sockets.
  await run(edge.url, 5, 0);
  const rows: string[][] = [];
  for (const [what, count, gapMs] of [
    [`one at a time (${alone}, 1.6 s apart)`, alone, 1_600],
    [`a burst (${burst}, 50 ms apart)`, burst, 50],
  ] as const) {
    const straight = await run(hub.url, count, gapMs);
    const viaEdge = await run(edge.url, count, gapMs);
    rows.push([what, fmt(straight, 2), fmt(viaEdge, 2), fmt(viaEdge - straight, 2)]);
  }
  edge.close();
  await Promise.all([hub.stop(), cloud.stop()]);
  await bridge.close();
  await redis.stop();
  await api.close();
  return rows;
}

/** CPU of the client side of one store command, the bridge and Redis in another process. */
async function cpuPerCommand(n: number): Promise<string[][]> {
  const child = fork(fileURLToPath(new URL('./bridge-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const { url, token } = await new Promise<{ url: string; token: string }>((resolve) =>
    child.once('message', (m) => resolve(m as { url: string; token: string })),
  );
  const clients: Array<[string, () => Promise<unknown>]> = [
    [
      'autohub client: node:http keep-alive requester, fresh fuse per request',
      (() => {
        const c = createUpstashClient({ url, token }, 1000);
        return () => c.get('bench:key');
      })(),
    ],
    [
      '@upstash/redis defaults (fetch, base64, auto-pipelining)',
      (() => {
        const c = new Redis({ url, token, enableTelemetry: false });
        return () => c.get('bench:key');
      })(),
    ],
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
  printTable(
    `cost: per mention, ${mentions} of each kind one after another, hub and cloud copy on one store (main: 4-6 commands, 1 round trip before the ack, 3 before the reply)`,
    [
      ['kind', 'commands', 'round trips before the ack', 'before the reply is posted', 'hub CPU us'],
      ...kinds.map((k) => [k.kind, fmt(k.commands, 2), fmt(k.beforeAck, 2), k.kind.startsWith('command') ? '-' : fmt(k.beforePost, 2), fmt(k.cpuUs, 0)]),
    ],
  );
  console.error('bench cost: a schedule every 2 s on two copies, 20 firings ...');
  printTable('cost: a schedule, Upstash commands a firing (between firings: none)', [
    ['setup', 'commands in the window', 'firings', 'commands a firing'],
    ...(await scheduleCost()),
  ]);
  console.error('bench cost: a turn parked on ctx.ask, its watch reading every 500 ms ...');
  printTable('cost: a turn parked on ctx.ask, Upstash commands (per day at the default 10-minute watch gap)', [
    ['phase', 'commands', 'over', 'per day at the default gap'],
    ...(await askCost()),
  ]);
  console.error("bench cost: the edge hint's extra looks per mention ...");
  printTable('cost: per mention through the edge, which hints the copy that did not ack (its reaper looks once when the lease would lapse)', [
    ['mentions', 'commands, straight to the hub', 'through the edge', 'extra (the hinted looks)'],
    ...(await hintCost(20, 20)),
  ]);
  console.error("bench cost: takeovers after a SIGKILL (defaults: lease 10 s, peer checked every 5 s; or only the edge's hint) ...");
  const taken = summarize(await takeover(2, 8, 'peer'));
  const hinted = summarize(await takeover(2, 8, 'hint'));
  printTable("cost: a dead owner's turns answered by the other copy, seconds after the SIGKILL (main: within 15 s, at 46,000 idle commands a day)", [
    ['setup', 'turns', 'p50 s', 'p99 s', 'aim'],
    ['defaults with AUTOHUB_PEER_URL', String(taken.n), fmt(taken.p50 / 1000, 1), fmt(taken.p99 / 1000, 1), '<= 30 s'],
    [
      "defaults without a peer URL, the edge in front, nothing sent after the kill (the edge's hint)",
      String(hinted.n),
      fmt(hinted.p50 / 1000, 1),
      fmt(hinted.p99 / 1000, 1),
      '<= 30 s',
    ],
    [
      'before the hint, without a peer URL (computed: lease + one idle look; 104 s measured before the edge hinted)',
      '-',
      '-',
      fmt((10_000 + 120_000 * 1.1) / 1000, 0),
      '-',
    ],
  ]);
  printTable('cost: CPU per store command on the client, 2,000 GETs, bridge and Redis in another process', [
    ['client', 'CPU ms per command', 'wall ms per command'],
    ...(await cpuPerCommand(2000)),
  ]);
}
