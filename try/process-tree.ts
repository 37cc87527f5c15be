/**
 * The playground's processes, read from `ps` (the same flags on Linux and
 * macOS): what it started (the copies, their tsx transform services, its
 * redis-server), to end them all when it stops, and what started it, to
 * stop when that is gone.
 *
 * Why the second: `kill <pid of npm run play>` ends npm and its `sh -c`,
 * and Debian's sh passes no signal on to its child, so tsx and the
 * playground live on as orphans with everything they started. Nothing tells
 * them; they notice by looking. The decisions are pure functions of the
 * process table; `readProcessTable` is the one shell around them.
 */
import { execFileSync } from 'node:child_process';

export interface ProcessRow {
  pid: number;
  ppid: number;
  args: string;
}

/** `ps -A -o pid=,ppid=,args=`, parsed; rows that do not parse are left out. */
export function parseProcessTable(text: string): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s?(.*)$/.exec(line);
    if (m) rows.push({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' });
  }
  return rows;
}

export function readProcessTable(): ProcessRow[] {
  try {
    return parseProcessTable(execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    // No ps (a stripped container): the playground still stops what it knows of itself.
    return [];
  }
}

/** Every process below `root` (children, theirs, ...), nearest first. */
export function descendantsOf(table: readonly ProcessRow[], root: number): number[] {
  const out: number[] = [];
  let level = [root];
  while (level.length > 0) {
    const next = table.filter((r) => level.includes(r.ppid) && r.pid !== root && !out.includes(r.pid)).map((r) => r.pid);
    out.push(...next);
    level = next;
  }
  return out;
}

/**
 * The processes whose end should end the playground: its parent (tsx, or whoever ran it) and, when
 * `npm run play` started it, each one up to that npm process. Never pid 1, never past npm (the shell
 * that ran npm may be short-lived, as `(npm run play &)` is).
 */
export function watchedAncestors(table: readonly ProcessRow[], pid: number, startedByNpm: boolean): number[] {
  const parent = (p: number) => table.find((r) => r.pid === p)?.ppid;
  const out: number[] = [];
  let at = parent(pid);
  while (at !== undefined && at > 1 && !out.includes(at)) {
    out.push(at);
    if (!startedByNpm) break;
    const row = table.find((r) => r.pid === at);
    if (row && /(^|[\s/])npm(-cli\.js)?(\s|$)/.test(row.args)) break;
    at = parent(at);
  }
  return out;
}

/** Whether `pid` still runs (signal 0 sends nothing; EPERM: it runs, as another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGKILL each of `pids` that still runs; a SIGSTOPped one (a frozen hub) dies too. Returns how many were still there. */
export function killAll(pids: readonly number[]): number {
  let n = 0;
  for (const pid of pids) {
    if (!alive(pid)) continue;
    n += 1;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
  return n;
}
