/**
 * The turn bench's processes and load: a server in a child process (its usage and busy turns over
 * IPC), signed mention deliveries, and one delivery posted over a kept-alive loopback connection.
 * Shared by bench/turn.ts and bench/turn-waits.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { mentionEnvelope } from '../drill/sim/slack-events.js';
import { signedHeaders } from '../lib/slack/index.js';
import { BENCH_SECRET as SECRET } from './children.js';

/**
 * The like-for-like baseline: stock Bolt plus what a user would write for two of autohub's jobs (no
 * duplicate answers: a `SET NX` claim per event id; a thinking status), over the same store.
 */
export const LIKE = 'stock Bolt + SET NX + status';

export const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
export const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface Usage {
  cpuUs: number;
  heapKb: number;
  rssKb: number;
  busy: number;
}

export interface Server {
  name: string;
  port: number;
  child: ChildProcess;
  usage(gc?: boolean): Promise<Usage>;
  /** Turns taken and not yet ended. */
  busy(): Promise<number>;
  stop(): Promise<void>;
}

/** A child that says `{ready: port}` (or `{url}`) once it serves, and answers `usage` over IPC. */
export async function spawnChild(
  file: string,
  arg: Record<string, unknown>,
  execArgv: string[],
): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const child = fork(file, [JSON.stringify(arg)], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], cwd: ROOT });
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
    child.once('message', (m) => resolve(m as Record<string, unknown>));
  });
  return { child, ready };
}

export async function startServer(name: string, file: string, arg: Record<string, string>, execArgv: string[] = []): Promise<Server> {
  const { child, ready } = await spawnChild(file, arg, ['--expose-gc', ...execArgv]);
  return {
    name,
    port: ready.ready as number,
    child,
    usage: (gc = false) =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as Usage));
        if (gc) child.send('gc');
        child.send('usage');
      }),
    busy: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve((m as { busy: number }).busy));
        child.send('busy');
      }),
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let batch = 0;

/** A signed mention delivery; `ts` is its message's, the thread its answer goes in. */
export interface Delivery {
  ts: string;
  body: string;
  headers: Record<string, string>;
}

/** Signed deliveries, each a fresh event and message (no claim sees a duplicate). */
export async function deliveries(n: number): Promise<Delivery[]> {
  batch += 1;
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const ts = `${1_700_800_000 + batch}.${String(i).padStart(6, '0')}`;
      const body = JSON.stringify(mentionEnvelope({ eventId: `Ev-turn-${batch}-${i}`, ts }));
      return {
        ts,
        body,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...(await signedHeaders(SECRET, body, Date.now())) },
      };
    }),
  );
}

/** Loopback keep-alive connections, as Slack's own deliveries reuse theirs; node:http, the least client work. */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function post(port: number, d: { body: string; headers: Record<string, string> }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/slack/events', method: 'POST', headers: d.headers, agent }, (res) => {
      res.resume();
      res.on('error', (e) => reject(new Error(`the server on port ${port} broke its answer off: ${e.message}`)));
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e) => reject(new Error(`the server on port ${port} refused the delivery: ${e.message}`)));
    req.end(d.body);
  });
}
