/**
 * Whether a catch-up sweep is due, and over which window. Pure.
 *
 * Slack retries a delivery for about five minutes, then drops it. When no
 * copy has claimed anything for longer than that, mentions sent meanwhile
 * may have been dropped (the Mac asleep and the cloud copy down, or the edge
 * failing): read them back from Slack's history since the last moment a copy
 * was known to be serving, less a margin, and at most `maxMs` back.
 */
export interface SweepInput {
  /** The store's clock (Redis TIME), the one Slack's `ts` is compared with; never a copy's own. */
  now: number;
  /** How long ago any copy last claimed a delivery; null when none is on record (a fresh store). */
  sinceServedMs: number | null;
  /** Where the last sweep (by any copy) ended, epoch ms. */
  lastSweptTo: number | undefined;
  /** Slack's retry window: anything newer is still being retried by Slack. @default 360000 */
  retryWindowMs: number;
  /** Read this much before the watermark, for deliveries in flight and Slack's clock against the store's. @default 60000 */
  marginMs: number;
  /** AUTOHUB_CATCHUP_MAX_HOURS, in ms. */
  maxMs: number;
  /**
   * The least time between two sweeps while nothing is claimed (an idle bot,
   * or an edge that is down while the copies are up): each sweep reads every
   * conversation's history. @default retryWindowMs
   */
  everyMs?: number;
}

export interface SweepWindow {
  from: number;
  to: number;
}

/** Messages this recent are left to the live deliveries. */
export const SWEEP_TO_LAG_MS = 5_000;

export function sweepWindow(input: SweepInput): SweepWindow | undefined {
  const { now, sinceServedMs, lastSweptTo, retryWindowMs, marginMs, maxMs } = input;
  if (sinceServedMs === null || sinceServedMs < retryWindowMs) return undefined;
  if (lastSweptTo !== undefined && now - lastSweptTo < Math.max(retryWindowMs, input.everyMs ?? 0)) return undefined;
  const watermark = Math.max(now - sinceServedMs, lastSweptTo ?? -Infinity);
  return { from: Math.max(watermark - marginMs, now - maxMs), to: now - Math.min(SWEEP_TO_LAG_MS, retryWindowMs / 2) };
}
