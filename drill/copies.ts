/**
 * The hub and the cloud copy for the drill. With a real Redis they are child
 * processes started as `npm start` starts them (same entry, same
 * environment variables), so a crash is a real SIGKILL. Without one they run
 * in this process, sharing an in-process store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAutohub, type Autohub } from '../app/create-app.js';
import { loadTurnModule } from '../app/turn-module.js';
import type { SharedStore } from '../lib/store/index.js';
import { parseAppConfig, type Role } from '../lib/config/index.js';
import { createLogger, silentLogger, type Level } from '../lib/log/index.js';
import { freePort } from './sim/free-port.js';
import { reapOnSignal } from './sim/reap.js';

/** The drill's health token (see harness.ts); defined here so the copies need not import the harness. */
export const DRILL_HEALTH_TOKEN = 'drill-health-token-0123456789';

export interface CopyHandle {
  role: Role;
  instance: string;
  url: string;
  /** Gone at once, mid-turn if need be. */
  kill(): Promise<void>;
  /** Frozen (SIGSTOP: a laptop lid closed), sockets open, answering nothing; `thaw` wakes it. */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** Back on the same port; with `env`, under those settings from now on (a misconfigured copy, a slow turn). */
  restart(env?: Record<string, string>): Promise<void>;
  /** Stopped gracefully (SIGTERM), then started again under `env` on top of its usual settings. */
  reconfigure(env: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

export interface CopyEnv {
  /** @default drill-<role> */
  instance?: string;
  /** How long the copy may take to be healthy after it starts (a test of the bound sets a short one). @default HEALTHY_WITHIN_MS */
  healthyWithinMs?: number;
  /** The drill's time factor: Slack's retry window, and so the catch-up sweep's, shrinks by it. @default 1 */
  factor?: number;
  signingSecret: string;
  webApiUrl: string;
  upstash?: { url: string; token: string };
  /** The bot's module (AUTOHUB_TURN), as `npm start` takes it; unset: the demo turn. */
  turn?: string;
  /**
   * Settings the bot itself reads (an API key for its model), passed through from this process's environment:
   * never the copy's own (AUTOHUB_*, SLACK_*, UPSTASH_*, PORT), which the drill sets.
   */
  botEnv?: Record<string, string>;
  /** Each line a child copy logs (its JSON log lines, at `logLevel` and above), with the copy's instance; unset: its logs are dropped. */
  onLog?: (instance: string, line: string) => void;
  /** The level the copies log at when `onLog` takes their lines. @default 'info' */
  logLevel?: Level;
}

/** The copy's own settings: what the drill sets, never passed through from a developer's shell. */
const OWN_SETTING = /^(AUTOHUB_|SLACK_|UPSTASH_|PORT$|NODE_OPTIONS$)/;

/** What of `from` (this process's environment) the bot may read: everything but the copy's own settings. */
export function botEnvOf(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(from)) if (v !== undefined && !OWN_SETTING.test(k)) out[k] = v;
  return out;
}

/** The token each copy calls Slack with: its instance's own, so the simulated Slack can tell who wrote a message. */
export const tokenOf = (instance: string) => `xoxb-${instance}`;

const MAIN = fileURLToPath(new URL('../app/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));

function env(role: Role, port: number, o: CopyEnv): Record<string, string> {
  const instance = o.instance ?? `drill-${role}`;
  return {
    ...o.botEnv,
    AUTOHUB_ROLE: role,
    AUTOHUB_INSTANCE: instance,
    // Never a developer's .env: its real tokens must not reach a drill copy.
    AUTOHUB_ENV_FILE: 'none',
    PORT: String(port),
    SLACK_SIGNING_SECRET: o.signingSecret,
    AUTOHUB_HEALTH_TOKEN: DRILL_HEALTH_TOKEN,
    SLACK_BOT_TOKEN: tokenOf(instance),
    SLACK_API_URL: o.webApiUrl,
    AUTOHUB_REFUSAL_LOG: 'off',
    AUTOHUB_LOG_LEVEL: process.env.DRILL_LOG_LEVEL ?? 'error',
    AUTOHUB_DRAIN_MS: '2000',
    // Short leases, so a turn whose owner dies is taken over within about 3.5 s
    // (lease 3 s + reaper 0.5 s), yet long enough not to lapse on a busy machine.
    AUTOHUB_LEASE_MS: '3000',
    AUTOHUB_LEASE_RENEW_MS: '1000',
    AUTOHUB_REAPER_MS: '500',
    // Slack's retries come faster by the factor, so the catch-up sweep's window does too.
    AUTOHUB_CATCHUP_RETRY_WINDOW_MS: String(Math.max(100, Math.round(360_000 / (o.factor ?? 1)))),
    AUTOHUB_CATCHUP_EVERY_MS: String(Math.max(100, Math.round(360_000 / (o.factor ?? 1)))),
    AUTOHUB_CATCHUP_PACE_MS: '0',
    // Retries after 0.5 s, 2 s, 8 s: a Web API outage of a few seconds is outlasted.
    AUTOHUB_TURN_RETRY_DELAY_MS: '500',
    AUTOHUB_TURN_ATTEMPTS: '5',
    ...(o.upstash ? { UPSTASH_REDIS_REST_URL: o.upstash.url, UPSTASH_REDIS_REST_TOKEN: o.upstash.token } : {}),
    ...(o.turn !== undefined ? { AUTOHUB_TURN: o.turn } : {}),
  };
}

/** How long a copy may take to answer its health check after it starts (a loaded machine's tsx start included: 20 s was missed in CI). */
const HEALTHY_WITHIN_MS = 60_000;

async function waitHealthy(url: string, child?: ChildProcess, withinMs = HEALTHY_WITHIN_MS): Promise<void> {
  const until = Date.now() + withinMs;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`a copy exited with ${child.exitCode} before it was healthy (${url})`);
    try {
      const response = await fetch(`${url}/slack/health`);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > until) throw new Error(`a copy did not become healthy within ${withinMs / 1000} s (${url})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A journal file no other copy uses. */
function ownJournal(): string {
  return join(tmpdir(), `autohub-journal-${randomUUID()}.jsonl`);
}

/** A copy started as `npm start` starts it (the same entry), on `port`, with only `env`: for the drill and the tests alike. */
export interface SpawnedCopy {
  child: ChildProcess;
  url: string;
  /** What it wrote to stdout and stderr so far (kept only when `capture`). */
  output(): string;
  exited: Promise<number | null>;
}

export function spawnCopy(env: Record<string, string>, port: number, options: { capture?: boolean; onLine?: (line: string) => void } = {}): SpawnedCopy {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    // Never a developer's .env: its real tokens must not reach a drill or test copy. Each copy its
    // own journal, as on its own machine (the default file in the checkout would be shared by every
    // copy the drill and the tests start at once, and one copy would drain another's turns).
    env: {
      PATH: process.env.PATH ?? '',
      AUTOHUB_ENV_FILE: 'none',
      AUTOHUB_REFUSAL_LOG: 'off',
      AUTOHUB_JOURNAL: ownJournal(),
      PORT: String(port),
      ...env,
    },
    stdio: options.capture || options.onLine ? ['ignore', 'pipe', 'pipe'] : ['ignore', process.env.DRILL_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
  reapOnSignal(child);
  let out = '';
  const onLine = options.onLine;
  if (onLine) {
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.on('data', (d: Buffer) => {
        const lines = (partial + d.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line !== '') onLine(line);
      });
    }
  }
  if (options.capture) {
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

export async function startChildCopy(role: Role, o: CopyEnv): Promise<CopyHandle> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let extra: Record<string, string> = {};
  // One journal for this copy across its restarts, as a Mac keeps its file through a crash.
  const journal = ownJournal();
  const launch = async (overrides?: Record<string, string>) => {
    if (overrides) extra = overrides;
    const onLog = o.onLog;
    const instance = o.instance ?? `drill-${role}`;
    child = spawnCopy({ AUTOHUB_JOURNAL: journal, ...env(role, port, o), ...(onLog ? { AUTOHUB_LOG_LEVEL: o.logLevel ?? 'info' } : {}), ...extra }, port, {
      ...(onLog ? { onLine: (line: string) => onLog(instance, line) } : {}),
    }).child;
    await waitHealthy(url, child, o.healthyWithinMs);
  };
  const end = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  };
  // A copy's starts and stops one after another: two faults that overlap on a loaded machine (the ask scenario's
  // SIGKILLed hub still starting again when both copies go down) stopped a start half-way ("exited with 0 before
  // it was healthy" in CI), or would start a second process on the copy's port.
  let last: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(step: () => Promise<T>): Promise<T> => {
    const next = last.then(step, step);
    last = next.catch(() => {});
    return next;
  };
  try {
    await launch();
  } catch (error) {
    // Started but never healthy: nobody gets a handle to stop it, so it is stopped here (a drill that went on to its
    // next scenario left two such copies a scenario running, each loading the machine further).
    await end('SIGKILL');
    throw error;
  }
  return {
    role,
    instance: o.instance ?? `drill-${role}`,
    url,
    kill: () => inTurn(() => end('SIGKILL')),
    freeze: async () => void child?.kill('SIGSTOP'),
    thaw: async () => void child?.kill('SIGCONT'),
    restart: () => inTurn(() => launch()),
    reconfigure: (overrides) =>
      inTurn(async () => {
        await end('SIGTERM');
        await launch(overrides);
      }),
    stop: () => inTurn(() => end('SIGTERM')),
  };
}

export async function startInProcessCopy(role: Role, o: CopyEnv, store: SharedStore): Promise<CopyHandle> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let copy: Autohub | undefined;
  let stopping: Promise<void> = Promise.resolve();
  let extra: Record<string, string> = {};
  const journal = ownJournal();
  const launch = async (overrides?: Record<string, string>) => {
    if (overrides) extra = overrides;
    await stopping;
    const config = parseAppConfig({ AUTOHUB_JOURNAL: journal, ...env(role, port, o), ...extra });
    // The bot as app/main.ts loads it; unset, createAutohub runs the demo turn under the config's settings.
    const turn = config.turn !== undefined ? await loadTurnModule(config.turn) : undefined;
    // With onLog, its lines go there as a child copy's do (try reads a turn's retries and dead letter from them).
    const onLog = o.onLog;
    const instance = o.instance ?? `drill-${role}`;
    const log = onLog ? createLogger({ level: o.logLevel ?? 'info', base: { instance }, write: (line) => onLog(instance, line) }) : silentLogger;
    copy = createAutohub({ config, log, store, turn });
    await copy.start();
  };
  await launch();
  return {
    role,
    instance: o.instance ?? `drill-${role}`,
    url,
    // The closest this process comes to a crash: from now on every new connection is dropped.
    kill: async () => {
      stopping = copy?.stop() ?? Promise.resolve();
    },
    freeze: async () => {
      throw new Error('a copy in this process cannot be frozen');
    },
    thaw: async () => {},
    restart: launch,
    reconfigure: async (overrides) => {
      await copy?.stop();
      await launch(overrides);
    },
    stop: async () => {
      await copy?.stop();
      await stopping;
    },
  };
}
