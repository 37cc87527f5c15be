/** `npm start`'s entry as a child process, for tests that signal or kill it: the drill's way to start a copy, with its output kept. */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { spawnCopy, type SpawnedCopy } from '../../drill/copies.js';
import { freePort } from '../../drill/sim/free-port.js';
import { eventually } from './copies.js';

export type ChildApp = SpawnedCopy;

export async function spawnApp(env: Record<string, string>): Promise<ChildApp> {
  const copy = spawnCopy(env, await freePort(), { capture: true });
  await eventually(() => copy.output().includes('"app.started"') || copy.child.exitCode !== null, 'the app to start', 45_000);
  if (copy.child.exitCode !== null) throw new Error(`app exited at start: ${copy.output()}`);
  return copy;
}

/** Short leases so a takeover costs about 2 s: lease 1,500 ms, renewed every 400 ms, reaper every 300 ms. */
export const SHORT_LEASE = { AUTOHUB_LEASE_MS: '1500', AUTOHUB_LEASE_RENEW_MS: '400', AUTOHUB_REAPER_MS: '300' };

/**
 * The hub as a child process, the copy a test kills, freezes, signals or restarts: on the shared store
 * with short leases, or alone on its in-process store (no `upstash`) with the default ones.
 */
export function spawnHub(
  o: { webApiUrl: string; upstash?: { url: string; token: string }; secret: string },
  env: Record<string, string> = {},
): Promise<ChildApp> {
  return spawnApp({
    AUTOHUB_ROLE: 'hub',
    AUTOHUB_INSTANCE: 'hub-child',
    SLACK_SIGNING_SECRET: o.secret,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_API_URL: o.webApiUrl,
    ...(o.upstash ? { UPSTASH_REDIS_REST_URL: o.upstash.url, UPSTASH_REDIS_REST_TOKEN: o.upstash.token, ...SHORT_LEASE } : {}),
    ...env,
  });
}

/** `node` with what `npm start` runs (app/main.ts through tsx), from the checkout's root. */
export const START_ARGS = ['--import', 'tsx', 'app/main.ts'];

/** What `npm start` is given in a test: no .env file read, a hub with well-formed fake secrets, on any free port. */
export const START_ENV: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  AUTOHUB_ENV_FILE: 'none',
  AUTOHUB_ROLE: 'hub',
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 's',
  PORT: '0',
};

/** `npm start` with START_ENV and `env`, run to its end: for a start-up that must stop, read by its exit code and its lines. */
export function startToExit(env: Record<string, string>): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, START_ARGS, { env: { ...START_ENV, ...env }, encoding: 'utf8', timeout: 20_000 });
}
