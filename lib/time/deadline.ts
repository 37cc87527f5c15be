/**
 * Time helpers shared by every capability. Each timeout is anchored to the one
 * operation it bounds: nothing here creates a timer at module load.
 *
 * Every timer here fires *after the I/O already waiting has been read*: its
 * callback is deferred with `setImmediate`, which Node runs after the poll
 * phase. A process whose event loop was starved (another core busy, a long
 * synchronous task) would otherwise run an expired timer before reading the
 * reply that arrived in time, and blame the store or the peer for its own
 * lateness.
 */
export type Clock = () => number;
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, Math.max(0, ms));
  });

/** Call `fire` once `ms` have passed and pending I/O has been read; returns a cancel function. */
export function fuse(ms: number, fire: () => void): () => void {
  let immediate: ReturnType<typeof setImmediate> | undefined;
  const timer = setTimeout(
    () => {
      immediate = setImmediate(fire);
    },
    Math.max(0, ms),
  );
  return () => {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  };
}

/** A fresh signal that aborts with a TimeoutError after `ms` (see `fuse`). One per operation, never shared. */
export function fuseSignal(ms: number): { signal: AbortSignal; cancel: () => void } {
  const controller = new AbortController();
  const cancel = fuse(ms, () => controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')));
  return { signal: controller.signal, cancel };
}

/**
 * Resolves with `work`, or with `onTimeout()` once `ms` has passed, whichever
 * comes first. `work` keeps running after the deadline; its rejection is then
 * swallowed so it can never surface as an unhandled rejection.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let cancel: (() => void) | undefined;
  const late = new Promise<T>((resolve) => {
    cancel = fuse(ms, () => resolve(onTimeout()));
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => cancel?.());
}
