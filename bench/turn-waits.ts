/**
 * The turn bench's far part: how long a person waits for an @mention's answer
 * when the store and Slack are as far away as deployed (issue 43, item 7).
 * Every store request passes a delay proxy that adds `storeMs` (Upstash from a
 * Mac: about 40 ms), every Web API call one that adds `slackMs` (Slack: about
 * 120 ms), half each way (bench/delay-proxy.ts). Per mention, from the moment
 * its delivery is sent: the first visible sign (a thinking status, or the
 * reply's first words) and the whole answer (its stream stopped), as they
 * reach the fake Web API (bench/visible.ts). Deliveries go out one every
 * `everyMs` whatever the answers do (an open loop: a slow answer does not hold
 * the next mention back, so it shows in the figures instead of hiding).
 * The aim: autohub's waits <= the like-for-like baseline's + one store round trip.
 *
 * A few probes, one mention alone on a quiet server, count the store requests
 * that reached the store between the delivery and the first visible sign (and
 * the whole answer), and how many of them were sent one after another (each
 * after the one before had answered: before the first sign, round trips the
 * person waits on; before the whole answer, one may go beside a Slack call).
 */
import type { ChildProcess } from 'node:child_process';
import { fmt, printTable, summarize } from './stats.js';
import { deliveries, LIKE, post, type Server } from './turn-servers.js';
import type { Seen } from './visible.js';

/** The clock the fake Web API and the store's trace read too: ms since the epoch, with fractions. */
const clock = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WaitsOptions {
  /** Mentions per server, over all rounds. @default 200 */
  mentions?: number;
  /** A delivery sent every this many ms (10 a second: a few turns in flight, none queued for a slot). @default 100 */
  everyMs?: number;
  /** Rounds, who goes first alternating. @default 2 */
  rounds?: number;
  /** The store's round trip added. @default 40 */
  storeMs?: number;
  /** Slack's round trip added. @default 120 */
  slackMs?: number;
  /** Lone mentions whose store requests before the first sign are counted. @default 5 */
  probes?: number;
}

export interface Waits {
  /** From the delivery sent to the first status or words reaching Slack, ms. */
  first: number[];
  /** From the delivery sent to the answer's stream stopped, ms. */
  whole: number[];
  /** The delivery's HTTP answer, ms. */
  acks: number[];
  /** Mentions whose answer was not whole 30 s after the last was sent, and deliveries not answered 200. */
  missing: number;
  /** Per probe (a mention alone): what reached the store before its first visible sign, and before its whole answer. */
  probes: Array<{ first: StoreTrace; whole: StoreTrace; slack: string }>;
}

/** One answer of a child over IPC: the next message that has `key`. */
function ask<T>(child: ChildProcess, message: unknown, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m !== 'object' || m === null || !(key in m)) return;
      child.off('message', on);
      resolve((m as Record<string, T>)[key]!);
    };
    child.on('message', on);
    child.send(message as string);
  });
}

/** Until every thread's answer is whole (or `timeoutMs` passed): what Slack saw of each. */
async function seenWhole(api: ChildProcess, threads: string[], from: number, timeoutMs: number): Promise<Map<string, Seen>> {
  const deadline = clock() + timeoutMs;
  for (;;) {
    const seen = new Map(await ask<Array<[string, Seen]>>(api, { seen: threads, from }, 'seen'));
    if ([...seen.values()].every((s) => s.whole) || clock() > deadline) return seen;
    await sleep(100);
  }
}

/**
 * Requests in turn: arrivals more than half a round trip apart were sent one after another (each
 * waited for an answer); closer ones went together.
 */
export function inTurn(arrivals: readonly number[], roundTripMs: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  return sorted.filter((at, i) => i === 0 || at - sorted[i - 1]! > roundTripMs / 2).length;
}

/** `n` mentions, one every `everyMs`, into `into`. */
async function openLoop(server: Server, api: ChildProcess, n: number, everyMs: number, into: Waits): Promise<void> {
  const batch = await deliveries(n);
  const from = await ask<number>(api, 'mark', 'mark');
  const sent: number[] = [];
  const acks: Array<Promise<void>> = [];
  /** Deliveries not answered 200: each counted once as missing, whatever Slack saw of it. */
  const refused = new Set<number>();
  const start = clock();
  for (const [i, d] of batch.entries()) {
    const due = start + i * everyMs - clock();
    if (due > 0) await sleep(due);
    const at = clock();
    sent.push(at);
    acks.push(
      post(server.port, d).then(
        (status) => {
          if (status === 200) into.acks.push(clock() - at);
          else refused.add(i);
        },
        () => void refused.add(i),
      ),
    );
  }
  await Promise.all(acks);
  const seen = await seenWhole(
    api,
    batch.map((d) => d.ts),
    from,
    30_000,
  );
  for (const [i, d] of batch.entries()) {
    const s = seen.get(d.ts)!;
    if (refused.has(i) || !s.whole || s.first === undefined || s.last === undefined) {
      into.missing += 1;
      continue;
    }
    into.first.push(s.first - sent[i]!);
    into.whole.push(s.last - sent[i]!);
  }
}

/** What reached the store in a window of a lone mention's turn: requests, how many one after another, the commands. */
export interface StoreTrace {
  requests: number;
  inTurn: number;
  commands: string[];
}

/** One mention alone: the store's requests from its delivery to its first visible sign, and to its whole answer. */
async function probe(server: Server, api: ChildProcess, store: ChildProcess, storeMs: number): Promise<Waits['probes'][number]> {
  const [d] = await deliveries(1);
  const from = await ask<number>(api, 'mark', 'mark');
  store.send('trace');
  // The trace is on once the store's process answers a message sent after it.
  await ask(store, 'ping', 'pong');
  const at = clock();
  await post(server.port, d!);
  const s = (await seenWhole(api, [d!.ts], from, 30_000)).get(d!.ts)!;
  const trace = await ask<{ requests: number[]; commands: Array<[number, string]> }>(store, 'untrace', 'trace');
  const until = (end: number | undefined): StoreTrace => {
    const within = (t: number) => t >= at && t <= (end ?? Number.POSITIVE_INFINITY);
    const requests = trace.requests.filter(within);
    return { requests: requests.length, inTurn: inTurn(requests, storeMs), commands: trace.commands.filter(([t]) => within(t)).map(([, name]) => name) };
  };
  const slack = s.calls.map(([method, t]) => `${method.replace(/^(chat|assistant\.threads)\./, '')} +${fmt(t - at, 0)}`).join(', ');
  return { first: until(s.first), whole: until(s.last), slack };
}

const empty = (): Waits => ({ first: [], whole: [], acks: [], missing: 0, probes: [] });

/**
 * Each server's waits: a warm-up, `rounds` rounds of the open loop (who goes first alternating),
 * then the probes. The servers must already run against the far store and Slack.
 */
export async function measureWaits(servers: Server[], api: ChildProcess, store: ChildProcess, options: WaitsOptions = {}): Promise<Map<string, Waits>> {
  const rounds = options.rounds ?? 2;
  const perRound = Math.ceil((options.mentions ?? 200) / rounds);
  const everyMs = options.everyMs ?? 100;
  const waits = new Map(servers.map((s) => [s.name, empty()]));
  // Warm-up: the JIT, the first auth.test, kept-alive connections to the far store and Slack.
  for (const s of servers) await openLoop(s, api, 20, everyMs, empty());
  for (let round = 0; round < rounds; round++) {
    console.error(`bench turn: far away, round ${round + 1} of ${rounds} ...`);
    for (const s of round % 2 === 0 ? servers : [...servers].reverse()) await openLoop(s, api, perRound, everyMs, waits.get(s.name)!);
  }
  for (const s of servers) {
    for (let i = 0; i < (options.probes ?? 5); i++) {
      // Quiet first: the turns before ended, and their last store commands (a copy's finish comes
      // after the stream's stop) answered, so the trace holds this mention's own.
      while ((await s.busy()) > 0) await sleep(10);
      await sleep(500);
      waits.get(s.name)!.probes.push(await probe(s, api, store, options.storeMs ?? 40));
    }
  }
  return waits;
}

/** The far part's table: each wait's p50 and p99 beside stock Bolt and the like-for-like baseline, and the aim. */
export function printWaits(waits: Map<string, Waits>, options: WaitsOptions = {}): void {
  const storeMs = options.storeMs ?? 40;
  const ours = waits.get('autohub')!;
  const stock = waits.get('stock Bolt')!;
  const like = waits.get(LIKE)!;
  const minus = (x: number, y: number) => `${x >= y ? '+' : ''}${fmt(x - y, 1)} ms`;
  const row = (label: string, pick: (w: Waits) => number[], p: 'p50' | 'p99', aim: boolean): string[] => {
    const [a, b, c] = [ours, stock, like].map((w) => summarize(pick(w))[p]) as [number, number, number];
    const goal = aim ? `<= ${fmt(c + storeMs, 1)} ms (that + ${storeMs}): ${a <= c + storeMs ? 'met' : 'not met'}` : '-';
    return [label, fmt(a, 1), fmt(b, 1), minus(a, b), goal, fmt(c, 1), minus(a, c)];
  };
  const median = (xs: number[]) => summarize(xs).p50;
  /** The first probe's commands, each name once with its count (`2x evalsha autohub:claim:...`). */
  const commands = (t: StoreTrace | undefined) => {
    const counts = new Map<string, number>();
    for (const c of t?.commands ?? []) counts.set(c, (counts.get(c) ?? 0) + 1);
    return [...counts].map(([c, n]) => (n > 1 ? `${n}x ${c}` : c)).join(', ') || 'none';
  };
  const probeRow = (name: string, w: Waits): string[] => {
    const at = (when: 'first' | 'whole') => {
      const traces = w.probes.map((p) => p[when]);
      return [fmt(median(traces.map((t) => t.inTurn)), 0), fmt(median(traces.map((t) => t.requests)), 0), commands(traces[0])];
    };
    return [name, ...at('first'), ...at('whole'), w.probes[0]?.slack ?? '-'];
  };
  printTable(
    `turn, far away: each mention's wait with the store ${storeMs} ms and Slack ${options.slackMs ?? 120} ms round trip away, ${ours.first.length + ours.missing} mentions a server, one every ${options.everyMs ?? 100} ms, from the delivery sent to the call reaching Slack`,
    [
      [
        'figure',
        'autohub',
        'stock Bolt',
        'autohub vs stock',
        `aim (like-for-like + one store round trip)`,
        'stock + SET NX claim + setStatus',
        'autohub vs that',
      ],
      row('first visible sign p50 (ms)', (w) => w.first, 'p50', true),
      row('first visible sign p99 (ms)', (w) => w.first, 'p99', true),
      row('whole answer p50 (ms)', (w) => w.whole, 'p50', true),
      row('whole answer p99 (ms)', (w) => w.whole, 'p99', true),
      row('ack p50 (ms)', (w) => w.acks, 'p50', false),
      ['answers missing or not whole', String(ours.missing), String(stock.missing), '-', '0', String(like.missing), '-'],
    ],
  );
  printTable(
    `turn, far away: what reached the store of one mention alone, from its delivery to its first visible sign and to its whole answer, and its calls to Slack (median of ${ours.probes.length} probes; commands: the first probe's)`,
    [
      [
        'server',
        'before the first sign: store requests one after another',
        'all requests',
        'commands',
        'before the whole answer: one after another',
        'all requests',
        'commands',
        'Slack calls (ms after the delivery)',
      ],
      probeRow('autohub', ours),
      probeRow('stock Bolt', stock),
      probeRow(LIKE, like),
    ],
  );
}
