/**
 * `npm run play` ends everything it started: its two copies, tsx's transform
 * services and its own redis-server, whichever way it is stopped. Run as a
 * person runs it (npm, sh, tsx, the playground), each run in a process group
 * of its own so that a failed test can still end it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, descendantsOf, parseProcessTable, readProcessTable, watchedAncestors } from '../../try/process-tree.js';
import { eventually } from '../support/copies.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BOT = 'test/support/slow-bot.mjs';

interface Run {
  npm: ChildProcess;
  url: string;
  /** Every process below npm once the page is up: sh, tsx, the playground, its copies, its redis-server. */
  tree: Array<{ pid: number; args: string }>;
  /** What npm and the playground printed so far. */
  output(): string;
}

const runs: Run[] = [];

async function startPlay(): Promise<Run> {
  const npm = spawn('npm', ['run', 'play', '--', '--port', '0', '--turn', BOT], {
    cwd: ROOT,
    detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  npm.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const run: Run = { npm, url: '', tree: [], output: () => out };
  runs.push(run);
  await eventually(() => /play: open (\S+)/.test(out) || npm.exitCode !== null, 'the playground to open', 90_000);
  run.url = /play: open (\S+)/.exec(out)?.[1] ?? '';
  expect(run.url, out).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  const table = readProcessTable();
  run.tree = descendantsOf(table, npm.pid!)
    .map((pid) => ({ pid, args: table.find((r) => r.pid === pid)!.args }))
    // The playground's own look at the table, if it caught one: ends by itself, and its pid may be reused.
    .filter((p) => !p.args.startsWith('ps '));
  // What there is to end: the copies (app/main.ts, twice) and the private redis-server, below tsx.
  expect(
    run.tree.filter((p) => p.args.includes('app/main.ts')),
    JSON.stringify(run.tree),
  ).toHaveLength(2);
  expect(
    run.tree.some((p) => p.args.startsWith('redis-server')),
    JSON.stringify(run.tree),
  ).toBe(true);
  return run;
}

/** A mention in flight: the stop finds a turn streaming. */
async function mention(run: Run): Promise<void> {
  const said = await fetch(new URL('/api/say', run.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"count"}' });
  expect(said.status).toBe(200);
}

const gone = (run: Run) => run.tree.every((p) => !alive(p.pid));
/** Every process of the run ended, within 20 s (a copy's drain is bounded at 5 s); else which did not, and what it printed. */
const allGone = (run: Run) =>
  eventually(() => gone(run), 'the processes to end', 20_000).catch((error: unknown) => {
    throw new Error(`still running: ${left(run)}`, { cause: error });
  });
const left = (run: Run) => `${JSON.stringify(run.tree.filter((p) => alive(p.pid)))} ; it printed:\n${run.output()}`;
const playPid = (run: Run) => run.tree.find((p) => p.args.includes('preflight.cjs') && p.args.includes('try/play.ts'))!.pid;

afterEach(() => {
  // A run a failed test left: its whole group, by the group's own id (this test started it).
  for (const run of runs.splice(0)) {
    try {
      process.kill(-run.npm.pid!, 'SIGKILL');
    } catch {
      /* ended */
    }
    for (const p of run.tree) if (alive(p.pid)) process.kill(p.pid, 'SIGKILL');
  }
});

describe('npm run play, stopped', () => {
  it('Ctrl-C (SIGINT to its process group) mid-answer: every process it started is gone', async () => {
    const run = await startPlay();
    await mention(run);
    process.kill(-run.npm.pid!, 'SIGINT');
    await allGone(run);
  }, 120_000);

  it('SIGINT to the playground alone: its copies, tsx services and redis-server end with it, and it says so', async () => {
    const run = await startPlay();
    await mention(run);
    process.kill(playPid(run), 'SIGINT');
    await allGone(run);
    expect(run.output()).toMatch(/play: stopping \(SIGINT\)[^\n]*\nplay: stopped/);
  }, 120_000);

  it('SIGTERM to the playground alone: the same', async () => {
    const run = await startPlay();
    process.kill(playPid(run), 'SIGTERM');
    await allGone(run);
  }, 120_000);

  it('kill of the npm process alone (its sh passes no signal on): the playground notices and ends everything', async () => {
    const run = await startPlay();
    process.kill(run.npm.pid!, 'SIGTERM');
    await allGone(run);
    expect(run.output()).toMatch(/which started it, is gone/);
  }, 120_000);
});

describe('npm run play, not started', () => {
  it('its port taken: one line naming it and what to do, exit 2, and no copy started', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const play = spawn(process.execPath, ['--import', 'tsx', 'try/play.ts', '--port', String(port), '--turn', BOT], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      const started = new Set<string>();
      play.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      // Every copy it would start is a child of it: count any that appear while it runs.
      const look = setInterval(() => {
        const table = readProcessTable();
        for (const pid of descendantsOf(table, play.pid!)) started.add(table.find((r) => r.pid === pid)?.args ?? '');
      }, 200);
      const code = await new Promise<number | null>((resolve) => play.once('exit', resolve));
      clearInterval(look);
      expect(code).toBe(2);
      expect(err).toContain(`play: port ${port} is taken (another playground?): pass --port N, or --port 0 for a free one`);
      expect(err).not.toMatch(/\n\s+at /);
      expect([...started].filter((args) => args.includes('app/main.ts') || args.startsWith('redis-server'))).toEqual([]);
    } finally {
      taken.close();
    }
  }, 60_000);
});

describe('the process table, read as the playground reads it', () => {
  // A terminal's shell, npm, its sh, tsx, the playground, and what the playground started; and a stranger.
  const table = parseProcessTable(`    1     0 init
  100     1 -bash
  200   100 npm run play
  210   200 sh -c tsx try/play.ts
  220   210 node node_modules/.bin/tsx try/play.ts
  230   220 node --require preflight.cjs try/play.ts
  240   230 redis-server 127.0.0.1:40000
  250   230 node --import tsx app/main.ts
  251   250 esbuild --service
  260   230 node --import tsx app/main.ts
  300   100 vim notes.md
`);

  it('what the playground started: its children and theirs, and nothing else', () => {
    expect(descendantsOf(table, 230).sort()).toEqual([240, 250, 251, 260]);
  });

  it('started by npm run play: it watches every process up to npm, not the shell that ran npm', () => {
    expect(watchedAncestors(table, 230, true)).toEqual([220, 210, 200]);
  });

  it('started some other way: it watches its parent alone', () => {
    expect(watchedAncestors(table, 230, false)).toEqual([220]);
  });

  it('npm as Node runs it (node .../bin/npm, npm-cli.js) is npm too; pid 1 is never watched', () => {
    const other = parseProcessTable('  1 0 init\n 50 1 node /usr/lib/node_modules/npm/bin/npm-cli.js run play\n 60 50 sh -c tsx\n 70 60 play\n 80 1 orphan');
    expect(watchedAncestors(other, 70, true)).toEqual([60, 50]);
    expect(watchedAncestors(other, 80, true)).toEqual([]);
  });
});
