/**
 * How late this process's own event loop runs, from Node's histogram. A copy
 * whose loop is starved answers slowly through no fault of the store or the
 * peer; the health body, the status page and the logs say so.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export class LoopDelay {
  #histogram: ReturnType<typeof monitorEventLoopDelay> | undefined;

  start(): void {
    this.#histogram ??= monitorEventLoopDelay({ resolution: 20 });
    this.#histogram.enable();
  }

  stop(): void {
    this.#histogram?.disable();
  }

  /** p99 and max since the last reset, in ms, then reset. */
  take(): { p99Ms: number; maxMs: number } {
    const h = this.#histogram;
    if (!h || h.count === 0) return { p99Ms: 0, maxMs: 0 };
    const out = { p99Ms: Math.round(h.percentile(99) / 1e6), maxMs: Math.round(h.max / 1e6) };
    h.reset();
    return out;
  }
}
