/**
 * Time helpers shared by every capability. Each timeout is anchored to the one
 * operation it bounds: nothing here creates a timer at module load.
 */
export type Clock = () => number;
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, Math.max(0, ms));
  });

/**
 * Resolves with `work`, or with `onTimeout()` once `ms` has passed, whichever
 * comes first. `work` keeps running after the deadline; its rejection is then
 * swallowed so it can never surface as an unhandled rejection.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), Math.max(0, ms));
  });
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
