/** `npm start`'s entry as a child process, for tests that signal or kill it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../drill/sim/free-port.js';
import { eventually } from './copies.js';

export interface ChildApp {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

export async function spawnApp(env: Record<string, string>): Promise<ChildApp> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), AUTOHUB_REFUSAL_LOG: 'off', AUTOHUB_ENV_FILE: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await eventually(() => out.includes('"app.started"') || child.exitCode !== null, 'the app to start', 15_000);
  if (child.exitCode !== null) throw new Error(`app exited at start: ${out}`);
  return { child, url, output: () => out, exited };
}

/** Short leases so a takeover costs about 2 s: lease 1,500 ms, renewed every 400 ms, reaper every 300 ms. */
export const SHORT_LEASE = { AUTOHUB_LEASE_MS: '1500', AUTOHUB_LEASE_RENEW_MS: '400', AUTOHUB_REAPER_MS: '300' };

/** The hub as a child process on the shared store, with short leases: the copy a test kills, freezes or restarts. */
export function spawnHub(o: { webApiUrl: string; upstash: { url: string; token: string }; secret: string }, env: Record<string, string> = {}): Promise<ChildApp> {
  return spawnApp({
    AUTOHUB_ROLE: 'hub',
    AUTOHUB_INSTANCE: 'hub-child',
    SLACK_SIGNING_SECRET: o.secret,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_API_URL: o.webApiUrl,
    UPSTASH_REDIS_REST_URL: o.upstash.url,
    UPSTASH_REDIS_REST_TOKEN: o.upstash.token,
    ...SHORT_LEASE,
    ...env,
  });
}
