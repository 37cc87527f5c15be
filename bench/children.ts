/** Copies as child processes for the benches, each answering `usage()` about itself. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FakeWebApi } from '../drill/sim/fake-web-api.js';
import type { UpstashBridge } from '../drill/sim/upstash-bridge.js';

const CHILD = fileURLToPath(new URL('./copy-child.ts', import.meta.url));

export interface BenchCopy {
  url: string;
  child: ChildProcess;
  usage(): Promise<{ cpuUs: number; rssKb: number; looks: number; rssNowKb: number; heapKb: number; waiting: number }>;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function startBenchCopy(env: Record<string, string>): Promise<BenchCopy> {
  const child = fork(CHILD, [JSON.stringify({ AUTOHUB_ENV_FILE: 'none', AUTOHUB_REFUSAL_LOG: 'off', AUTOHUB_LOG_LEVEL: 'error', ...env })], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench copy exited with ${code}`)));
    child.on('message', (m: { ready?: number }) => m.ready !== undefined && resolve(m.ready));
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    usage: () =>
      new Promise((resolve) => {
        const on = (m: { cpuUs?: number; rssKb?: number; looks?: number; rssNowKb?: number; heapKb?: number; waiting?: number }) => {
          if (m.cpuUs === undefined) return;
          child.off('message', on);
          resolve({ cpuUs: m.cpuUs, rssKb: m.rssKb ?? 0, looks: m.looks ?? 0, rssNowKb: m.rssNowKb ?? 0, heapKb: m.heapKb ?? 0, waiting: m.waiting ?? 0 });
        };
        child.on('message', on);
        child.send('gc');
        child.send('usage');
      }),
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}

/** The signing secret and health token the benchmarks' copies run with. */
export const BENCH_SECRET = 'bench-secret';
export const BENCH_TOKEN = 'bench-health-token-0123456789';

/** A copy's environment for the benchmarks: on the bridge's store, calling the fake Web API. */
export function copyEnv(role: 'hub' | 'cloud', api: FakeWebApi, bridge: UpstashBridge, extra: Record<string, string> = {}) {
  return {
    AUTOHUB_ROLE: role,
    AUTOHUB_INSTANCE: `bench-${role}`,
    PORT: '0',
    SLACK_SIGNING_SECRET: BENCH_SECRET,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_API_URL: api.url,
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: bridge.token,
    AUTOHUB_HEALTH_TOKEN: BENCH_TOKEN,
    ...extra,
  };
}
