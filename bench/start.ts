/**
 * Section `start`: from spawning a copy to its first `200` on /slack/health,
 * the built JavaScript (`npm start`) against TypeScript through tsx (how
 * `npm start` ran before `npm run build`), five runs each, in one run.
 */
import { spawn } from 'node:child_process';
import { freePort } from '../drill/sim/free-port.js';
import { fmt, printTable, summarize } from './stats.js';

async function timeToHealthy(args: string[]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? '',
      AUTOHUB_ENV_FILE: 'none',
      AUTOHUB_ROLE: 'hub',
      SLACK_SIGNING_SECRET: 'bench-secret-0123456789',
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
      PORT: String(port),
      AUTOHUB_LOG_LEVEL: 'error',
      AUTOHUB_REFUSAL_LOG: 'off',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/slack/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`the copy exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

export async function benchStart(runs = 5): Promise<void> {
  // What `npm start` does first: build when dist/node is missing or stale.
  await new Promise<void>((resolve, reject) =>
    spawn(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' }).once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`build exited ${code}`)),
    ),
  );
  const rows: string[][] = [['how', 'runs', 'p50 ms', 'max ms']];
  for (const [how, args] of [
    ['npm start: node dist/node/app/main.js (built)', ['--enable-source-maps', 'dist/node/app/main.js']],
    ['before: node --import tsx app/main.ts', ['--import', 'tsx', 'app/main.ts']],
  ] as const) {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) samples.push(await timeToHealthy([...args]));
    const s = summarize(samples);
    rows.push([how, String(runs), fmt(s.p50, 0), fmt(Math.max(...samples), 0)]);
  }
  printTable('start: spawn to the first 200 on /slack/health (in-process store)', rows);
}
