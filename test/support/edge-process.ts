/**
 * `npm run edge` (app/edge-node.ts) as a child process on a free port, its
 * copies pointed at a port nothing listens on: for tests that signal it, or
 * send it what would end it. Resolves once it logged `edge.started` (or exited).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../drill/sim/free-port.js';
import { eventually } from './copies.js';

export interface EdgeProcess {
  child: ChildProcess;
  port: number;
  /** Its stdout and stderr so far. */
  output(): string;
  /** Its exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

export async function spawnEdge(secret: string, env: Record<string, string> = {}): Promise<EdgeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/edge-node.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      AUTOHUB_ENV_FILE: 'none',
      PORT: String(port),
      HUB_URL: 'http://127.0.0.1:9',
      CLOUD_URL: 'http://127.0.0.1:9',
      SLACK_SIGNING_SECRET: secret,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await eventually(() => out.includes('"edge.started"') || child.exitCode !== null, 'the edge to start', 15_000);
  return { child, port, output: () => out, exited };
}
