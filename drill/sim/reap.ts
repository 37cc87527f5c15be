/**
 * Every child process the drill or a test started and that still runs (copies, private redis-servers): killed
 * when this process is stopped by a signal, so an interrupted drill or test run leaves nothing behind (a copy
 * would go on answering and loading the machine; a redis-server kept its port and memory after Ctrl-C).
 */
import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();
let reaping = false;

/** `child` is killed (SIGKILL, after a SIGCONT for a paused one) if this process is stopped by a signal first. */
export function reapOnSignal(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (reaping) return;
  reaping = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      for (const c of running) {
        c.kill('SIGCONT');
        c.kill('SIGKILL');
      }
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
}

/** The children still running (for a test). */
export function reapable(): ReadonlySet<ChildProcess> {
  return running;
}
