/**
 * Section `turn`: what a whole turn costs, side by side with stock Bolt in
 * one run. An @mention answered with a streamed reply (the demo turn's four
 * chunks), from the signed delivery to the reply's stop:
 *   - `autohub`: a copy as deployed (plain node on dist/node, built first),
 *     its claim store Upstash over a real redis-server behind the REST bridge;
 *   - `stock Bolt`: Bolt's HTTPReceiver, one token, streaming the same four
 *     chunks with web-api's `client.chatStream()`, no store;
 *   - `stock Bolt + SET NX + status`: the same, plus what a user would write
 *     for no duplicates and a thinking status: a `SET NX` claim of each event
 *     id (@upstash/redis, the same store) and `assistant.threads.setStatus`.
 *     Still less than a copy does (no lease, no takeover, no stream record).
 * The aims are the issue's, against bare stock Bolt; the last columns say how
 * much of the gap is the work itself.
 * Each server, the fake Web API, and Redis with its bridge run in their own
 * processes; the load comes from this one. The two servers are loaded in
 * turn, round after round (interleaved), so a busy machine weighs on both.
 *
 * Figures: ack p50/p99 one delivery at a time; turns done per second with 32
 * in flight (ack and reply both: the batch ends when its last turn does);
 * server CPU per delivery (the server process's own CPU time, over every
 * batch, each to its last turn's end); heap per turn held mid-reply (the
 * reply's first write held by the fake); each core's busy share over the
 * batches 32 at a time (pinned: a server whose core is not full while the
 * other is waits on the rig, not on its own work; its turns per busy second
 * of its core are then its own ceiling). `--profile`: a CPU profile of the
 * copy over the same load, and its top self-time functions. `--pin`: each
 * server on a core of its own, the rest on the other (TurnBenchOptions.pin).
 * `--slots N`: the copy's turn slots (TurnBenchOptions.slots).
 * Then the far part (bench/turn-waits.ts): the same three servers started
 * again with the store 40 ms and Slack 120 ms a round trip away, and the time a
 * person waits for the first visible sign and for the whole answer.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUpstashClient } from '../lib/store/index.js';
import { BENCH_SECRET as SECRET, BENCH_TOKEN } from './children.js';
import { closedLoop } from './closed-loop.js';
import { fmt, printTable, summarize } from './stats.js';
import { measureWaits, printWaits, type Waits, type WaitsOptions } from './turn-waits.js';
import { deliveries, here, LIKE, post, ROOT, type Server, spawnChild, startServer } from './turn-servers.js';

/** Long enough to send every delivery of the heap figure and weigh the heap; the turns then end. */
const HOLD_MS = 8_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until every turn the server took has ended (its reply stopped, its lease finished). */
async function drained(server: Server): Promise<void> {
  while ((await server.busy()) > 0) await sleep(2);
}

interface Batch {
  acks: number[];
  seconds: number;
  cpuUs: number;
  failures: number;
  /** Each core's busy and total time over the batch (jiffies), whoever spent it. */
  cores: CoreTimes[];
}

interface CoreTimes {
  busy: number;
  total: number;
}

/**
 * Each core's time so far (Linux's /proc/stat, in jiffies): busy is all but idle and iowait. Over
 * a batch it tells which side was short of CPU: a server whose core is not full while the other
 * core is waits on the rig (the load, the fake Web API, the store), not on its own work.
 */
function coreTimes(): CoreTimes[] {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line))
    .map((line) => {
      const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
      const busy = user! + nice! + system! + irq! + softirq! + steal!;
      return { busy, total: busy + idle! + iowait! };
    });
}

/** `n` deliveries, `concurrency` at a time; CPU and time to the end of the last turn. */
async function load(server: Server, n: number, concurrency: number): Promise<Batch> {
  const requests = await deliveries(n);
  await drained(server);
  const before = await server.usage();
  const coresBefore = coreTimes();
  const started = performance.now();
  const { samples: acks, failures } = await closedLoop(requests, concurrency, (r) => post(server.port, r));
  await drained(server);
  const seconds = (performance.now() - started) / 1000;
  const coresAfter = coreTimes();
  const after = await server.usage();
  const cores = coresAfter.map((c, i) => ({ busy: c.busy - coresBefore[i]!.busy, total: c.total - coresBefore[i]!.total }));
  return { acks, seconds, cpuUs: after.cpuUs - before.cpuUs, failures, cores };
}

/**
 * Heap per turn held mid-reply: `n` turns acked and waiting on Slack (the
 * fake holds each reply's first write), after a GC, against the heap before.
 * Each server as deployed: autohub runs 16 at once and keeps the rest waiting.
 */
async function heapPerTurn(server: Server, api: ChildProcess, n: number): Promise<number> {
  const held = () =>
    new Promise<number>((resolve) => {
      api.once('message', (m) => resolve((m as { held: number }).held));
      api.send('held');
    });
  await drained(server);
  const before = await server.usage(true);
  api.send({ hold: HOLD_MS });
  for (const d of await deliveries(n)) await post(server.port, d);
  // Every turn taken, and the held writes no longer growing: all that will wait on Slack does.
  for (let last = -1, now = await held(); (await server.busy()) < n || now !== last; last = now, now = await held()) await sleep(50);
  const during = await server.usage(true);
  api.send({ hold: 0 });
  await drained(server);
  return ((during.heapKb - before.heapKb) * 1024) / n;
}

/** One store command's round trip (p50 of 300 GETs), the copy's own client from this process. */
async function storeRoundTrip(url: string, token: string): Promise<number> {
  const client = createUpstashClient({ url, token }, 1000);
  const samples: number[] = [];
  for (let i = 0; i < 400; i++) {
    const t = performance.now();
    await client.get('bench:turn');
    if (i >= 100) samples.push(performance.now() - t);
  }
  return summarize(samples).p50;
}

interface Totals {
  acks1: number[];
  turns32: number;
  seconds32: number;
  cpuUs: number;
  delivered: number;
  failures: number;
  heapPerTurn: number;
  /** Each core's time over the batches 32 at a time. */
  cores32: CoreTimes[];
}

/** The top self-time functions of a .cpuprofile (V8's format: nodes with hit counts, samples in µs deltas). */
function topSelfTime(file: string, top: number): string[][] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Array<{ id: number; hitCount?: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
    startTime: number;
    endTime: number;
    samples: number[];
  };
  const samples = profile.samples.length || 1;
  const perSampleUs = (profile.endTime - profile.startTime) / samples;
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^file:\/\//, '').replace(ROOT, '')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + (node.hitCount ?? 0));
  }
  const idle = new Set(['(idle)', '(program)', '(garbage collector)']);
  const busy = [...byFunction].filter(([name]) => !idle.has(name)).reduce((sum, [, hits]) => sum + hits, 0) || 1;
  return [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, hits]) => [name.slice(0, 110), fmt((hits * perSampleUs) / 1000, 0), idle.has(name) ? '-' : `${fmt((hits / busy) * 100, 1)}%`]);
}

/*
 * Throughput's aims are issue 43's (item 7): at 32 at once, >= 1.0x the like-for-like baseline (stock + claim), and
 * >= 0.8x bare stock on the server's own core, pinned. Unpinned, the server shares its core with the load and the
 * store, so its ratio to bare stock is a figure with no aim; the 0.8x is the pinned row's.
 */
const THROUGHPUT_AIM = 'none vs stock (pinned: the core row); >= 1.0x vs stock + claim';
const PINNED_THROUGHPUT_AIM = '>= 0.8x';

/** A figure's row as a difference (ms): autohub, stock, autohub - stock, the aim, the like-for-like baseline, autohub - that. */
function differenceRow(label: string, [ours, stock, like]: [number, number, number], aim: string): string[] {
  const minus = (x: number, y: number) => `${x >= y ? '+' : ''}${fmt(x - y, 2)} ms`;
  return [label, fmt(ours, 2), fmt(stock, 2), minus(ours, stock), aim, fmt(like, 2), minus(ours, like)];
}

/** A figure's row as a ratio: autohub, stock, autohub / stock, the aim, the like-for-like baseline, autohub / that. */
function ratioRow(label: string, [ours, stock, like]: [number, number, number], digits: number, aim: string): string[] {
  return [label, fmt(ours, digits), fmt(stock, digits), `${fmt(ours / stock)}x`, aim, fmt(like, digits), `${fmt(ours / like)}x`];
}

export interface TurnBenchOptions {
  /** Rounds of the interleaved load. @default 3 */
  rounds?: number;
  /** Deliveries one at a time, per round and server. @default 200 */
  oneAtATime?: number;
  /** Deliveries 32 at a time, per round and server. @default 800 */
  atThirtyTwo?: number;
  /** Write a CPU profile of the copy and print its top self-time functions. @default false */
  profile?: boolean;
  /**
   * Each server on the first core alone, everything else (this process, the fake Web API, the
   * store's bridge and redis-server) on the second, with `taskset`: throughput then measures a
   * server's own ceiling, not its share of a machine whose other core also serves the store (which
   * a deployed copy reaches over the network). Needs two cores. @default false
   */
  pin?: boolean;
  /**
   * The copy's turn slots (`AUTOHUB_MAX_TURNS`). Stock Bolt runs every turn it acked at once, the
   * copy at most this many (16 as deployed), so at 32 in flight the default also measures the cap.
   * @default the copy's own default
   */
  slots?: number;
  /**
   * The far part (bench/turn-waits.ts): each server again with the store and Slack a round trip
   * away, and the time a person waits for an answer. False leaves it out. @default its own defaults
   */
  far?: WaitsOptions | false;
}

/** Every thread of `pid` on `cores` (Linux's taskset, from util-linux). */
function pinTo(pid: number, cores: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

export async function benchTurn(options: TurnBenchOptions = {}): Promise<void> {
  const rounds = options.rounds ?? 3;
  const n1 = options.oneAtATime ?? 200;
  const n32 = options.atThirtyTwo ?? 800;
  console.error('bench turn: building dist/node (npm run build) ...');
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const profileDir = options.profile ? mkdtempSync(join(tmpdir(), 'autohub-turn-prof-')) : undefined;
  // This process first: the children it forks from here on start on its core.
  if (options.pin) {
    if (availableParallelism() < 2) throw new Error(`--pin needs two cores; this machine has ${availableParallelism()}`);
    pinTo(process.pid, '1');
  }
  const tsx = ['--import', 'tsx'];
  /** Every child started, stopped at the end whatever happens. */
  const children: ChildProcess[] = [];
  const started = async <T extends { child: ChildProcess }>(p: Promise<T>): Promise<T> => {
    const c = await p;
    children.push(c.child);
    return c;
  };
  const totals = new Map<string, Totals>();
  let roundTrip = NaN;
  let waits: Map<string, Waits> | undefined;
  try {
    const far = options.far === false ? undefined : { storeMs: 40, slackMs: 120, ...options.far };
    // Each with a delay proxy in front for the far part (slowUrl), used by its servers alone.
    const store = await started(spawnChild(here('./bridge-child.ts'), far ? { slowMs: far.storeMs } : {}, tsx));
    const { url: bridgeUrl, token: bridgeToken } = store.ready as { url: string; token: string };
    roundTrip = await storeRoundTrip(bridgeUrl, bridgeToken);
    const api = await started(spawnChild(here('./api-child.ts'), far ? { slowMs: far.slackMs } : {}, tsx));
    const apiUrl = api.ready.url as string;
    const copyEnv = {
      AUTOHUB_ENV_FILE: 'none',
      AUTOHUB_REFUSAL_LOG: 'off',
      AUTOHUB_JOURNAL: 'off',
      AUTOHUB_LOG_LEVEL: 'error',
      AUTOHUB_ROLE: 'hub',
      AUTOHUB_INSTANCE: 'bench-hub',
      PORT: '0',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_API_URL: apiUrl,
      UPSTASH_REDIS_REST_URL: bridgeUrl,
      UPSTASH_REDIS_REST_TOKEN: bridgeToken,
      AUTOHUB_HEALTH_TOKEN: BENCH_TOKEN,
      ...(options.slots === undefined ? {} : { AUTOHUB_MAX_TURNS: String(options.slots) }),
    };
    const copy = await started(startServer('autohub', here('./turn-copy.mjs'), copyEnv, profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []));
    const stock = await started(
      startServer(
        'stock Bolt',
        here('./turn-stock.mjs'),
        { secret: SECRET, apiUrl },
        profileDir && process.env.PROFILE_STOCK ? ['--cpu-prof', '--cpu-prof-dir', `${profileDir}/stock`] : [],
      ),
    );
    const same = await started(
      startServer(LIKE, here('./turn-stock.mjs'), { secret: SECRET, apiUrl, claimUrl: bridgeUrl, claimToken: bridgeToken, status: 'yes' }),
    );
    const servers = [copy, stock, same];
    if (options.pin) for (const s of servers) pinTo(s.child.pid!, '0');
    for (const s of servers) totals.set(s.name, { acks1: [], turns32: 0, seconds32: 0, cpuUs: 0, delivered: 0, failures: 0, heapPerTurn: 0, cores32: [] });
    // Warm-up: the JIT, Bolt's first auth.test, the keep-alive sockets, the store's scripts loaded.
    for (const s of servers) await load(s, 300, 8);
    for (let round = 0; round < rounds; round++) {
      console.error(`bench turn: round ${round + 1} of ${rounds} ...`);
      // Alternate who goes first, so neither always follows the other's leftovers.
      for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
        const t = totals.get(s.name)!;
        const one = await load(s, n1, 1);
        const many = await load(s, n32, 32);
        t.acks1.push(...one.acks);
        t.turns32 += n32;
        t.seconds32 += many.seconds;
        t.cpuUs += one.cpuUs + many.cpuUs;
        t.delivered += n1 + n32;
        t.failures += one.failures + many.failures;
        t.cores32 = many.cores.map((c, i) => ({ busy: c.busy + (t.cores32[i]?.busy ?? 0), total: c.total + (t.cores32[i]?.total ?? 0) }));
      }
    }
    for (const s of servers) totals.get(s.name)!.heapPerTurn = await heapPerTurn(s, api.child, 200);
    if (far) {
      // The near servers stopped first (the copy writes its profile as it exits): the far ones alone.
      for (const s of servers) await s.stop();
      const farApi = api.ready.slowUrl as string;
      const farStore = store.ready.slowUrl as string;
      const farServers = [
        await started(startServer('autohub', here('./turn-copy.mjs'), { ...copyEnv, SLACK_API_URL: farApi, UPSTASH_REDIS_REST_URL: farStore })),
        await started(startServer('stock Bolt', here('./turn-stock.mjs'), { secret: SECRET, apiUrl: farApi })),
        await started(
          startServer(LIKE, here('./turn-stock.mjs'), { secret: SECRET, apiUrl: farApi, claimUrl: farStore, claimToken: bridgeToken, status: 'yes' }),
        ),
      ];
      if (options.pin) for (const s of farServers) pinTo(s.child.pid!, '0');
      waits = await measureWaits(farServers, api.child, store.child, far);
    }
  } finally {
    // The servers first (the copy writes its profile as it exits), then the store and the Web API.
    for (const c of children.reverse()) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
  }
  const ours = totals.get('autohub')!;
  const base = totals.get('stock Bolt')!;
  const like = totals.get(LIKE)!;
  const a = summarize(ours.acks1);
  const b = summarize(base.acks1);
  const c = summarize(like.acks1);
  const cpu = (t: Totals) => t.cpuUs / t.delivered;
  const rps = (t: Totals) => t.turns32 / t.seconds32;
  printTable(
    `turn: an @mention answered with a streamed reply (four chunks), ${rounds} interleaved rounds of ${n1} one at a time and ${n32} 32 at a time, each server in its own process${options.pin ? ', pinned to a core of its own (the rest on the other)' : ''}${options.slots === undefined ? '' : `, the copy's turn slots ${options.slots}`}`,
    [
      [
        'figure',
        'autohub (dist/node, Upstash over Redis)',
        'stock Bolt (HTTPReceiver + chatStream)',
        'autohub vs stock',
        'aim',
        'stock + SET NX claim + setStatus',
        'autohub vs that',
      ],
      differenceRow(
        'ack p50, one at a time (ms)',
        [a.p50, b.p50, c.p50],
        `<= +${fmt(roundTrip + 0.5, 2)} ms (a store round trip, ${fmt(roundTrip, 2)} ms, + 0.5)`,
      ),
      differenceRow('ack p99, one at a time (ms)', [a.p99, b.p99, c.p99], '-'),
      ratioRow('turns done per second, 32 at once', [rps(ours), rps(base), rps(like)], 0, THROUGHPUT_AIM),
      ratioRow('server CPU per delivery (us)', [cpu(ours), cpu(base), cpu(like)], 0, '<= 1.25x'),
      ratioRow('heap per turn held mid-reply (KB)', [ours.heapPerTurn / 1024, base.heapPerTurn / 1024, like.heapPerTurn / 1024], 1, '-'),
      ...(options.pin && ours.cores32.length > 0
        ? [
            ratioRow(
              "turns per busy second of the server's core, 32 at once (pinned: its own ceiling)",
              [ours, base, like].map((t) => rps(t) / ((t.cores32[0]!.busy || 1) / (t.cores32[0]!.total || 1))) as [number, number, number],
              0,
              PINNED_THROUGHPUT_AIM,
            ),
          ]
        : []),
      ...ours.cores32.map((_, i) => {
        const busy = (t: Totals) => `${fmt((t.cores32[i]!.busy / (t.cores32[i]!.total || 1)) * 100, 0)}%`;
        const core = options.pin ? (i === 0 ? ' (the server)' : i === 1 ? ' (load, fake Web API, store)' : '') : '';
        return [`core ${i}${core} busy, 32 at once`, busy(ours), busy(base), '-', '-', busy(like), '-'];
      }),
      ['non-200 answers', String(ours.failures), String(base.failures), '-', '0', String(like.failures), '-'],
    ],
  );
  if (waits) printWaits(waits, { storeMs: 40, slackMs: 120, ...(options.far || {}) });
  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) console.log('(no CPU profile was written)');
    else {
      printTable(`turn: the copy's top self-time functions over the whole run (${join(profileDir, file)})`, [
        ['function', 'self ms', 'of busy time'],
        ...topSelfTime(join(profileDir, file), 25),
      ]);
    }
  }
}
