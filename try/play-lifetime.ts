/**
 * How `npm run play` ends: on SIGINT (Ctrl-C), SIGTERM or SIGHUP, or when the
 * process that started it is gone (try/process-tree.ts), it closes the
 * playground (the copies get SIGTERM, the redis-server is stopped), then
 * SIGKILLs whatever it had started that is still there after CLOSE_MS, tsx's
 * transform services included. A second signal kills everything at once.
 *
 * The drill's reaper (drill/copies.ts) also listens for these signals and
 * exits at once, which suits a drill but would leave this process's
 * redis-server behind: once the playground is up, that listener is taken off
 * and this one stops everything. A signal while it is still starting kills
 * what it started so far and exits (nothing is worth a graceful end yet).
 */
import { alive, descendantsOf, killAll, readProcessTable, watchedAncestors, type ProcessRow } from './process-tree.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** A copy's SIGTERM drain and the store's stop, on a busy machine: then the rest is killed. */
export const CLOSE_MS = 5000;
/** How often it looks for the process that started it (one `kill(pid, 0)` per watched process). */
export const WATCH_MS = 1000;

export interface Closable {
  close(): Promise<void>;
}

export interface LifetimeOptions {
  pid?: number;
  table?: () => ProcessRow[];
  startedByNpm?: boolean;
}

/** Call before starting the playground; `run` it once started: it resolves when everything has stopped. */
export function stopWithProcess(say: (line: string) => void, o: LifetimeOptions = {}): { run(playground: Closable): Promise<void>; abandon(): void } {
  const pid = o.pid ?? process.pid;
  const table = o.table ?? readProcessTable;
  const startedByNpm = o.startedByNpm ?? process.env.npm_lifecycle_event === 'play';
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  // Read now, before the slow start: npm killed meanwhile would leave no chain to read (tsx re-parented to pid 1).
  const watched = watchedAncestors(table(), pid, startedByNpm);
  let up = false;
  let stopping = false;
  let wake: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => (wake = resolve));
  const killEverything = (why: string, code: number) => {
    const n = killAll(descendantsOf(table(), pid));
    say(`${why}: killed the ${n} process(es) it had started`);
    process.exit(code);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!up) return killEverything(`${signal} while starting`, 130);
    if (stopping) return killEverything(`${signal} again`, 130);
    wake(signal);
  };
  for (const s of SIGNALS) process.prependListener(s, onSignal);

  return {
    /** The start failed: end whatever it had started (a copy, the redis-server), so nothing outlives it. */
    abandon() {
      killAll(descendantsOf(table(), pid));
      for (const s of SIGNALS) process.removeListener(s, onSignal);
    },
    async run(playground) {
      up = true;
      for (const s of SIGNALS) {
        for (const l of process.listeners(s)) if (l !== onSignal && !before.get(s)!.has(l)) process.removeListener(s, l);
      }
      const watch = setInterval(() => {
        const gone = watched.find((p) => !alive(p));
        if (gone !== undefined) wake(`process ${gone}, which started it, is gone`);
      }, WATCH_MS);
      const why = await stopped;
      stopping = true;
      clearInterval(watch);
      say(`stopping (${why}): the copies, the store, the simulated Slack...`);
      const started = descendantsOf(table(), pid);
      let timer: NodeJS.Timeout | undefined;
      const closed = await Promise.race([
        playground.close().then(
          () => true,
          (error: unknown) => {
            say(`closing failed: ${(error as Error).message}`);
            return false;
          },
        ),
        new Promise<false>((resolve) => (timer = setTimeout(resolve, CLOSE_MS, false))),
      ]);
      clearTimeout(timer);
      // Its own tsx transform service among them, and anything a close that failed or ran out of time left.
      const left = killAll(started);
      say(closed ? 'stopped' : `stopped; killed ${left} process(es) not ended within ${CLOSE_MS / 1000} s`);
      for (const s of SIGNALS) process.removeListener(s, onSignal);
    },
  };
}
