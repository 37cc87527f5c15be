/**
 * A store that stops answering is one episode, not a line per failed command:
 * named once when it starts (which host, what failed), again once a minute
 * while it lasts (with how many commands failed meanwhile), and once when the
 * store answers again. Pure: the state and `now` in, the state and the line
 * to log (if any) out; lib/store/reporter.ts logs it.
 */

/** While the store keeps failing, it is named again this often. */
export const OUTAGE_LINE_EVERY_MS = 60_000;

export interface Outage {
  /** When the first failure of the episode happened (epoch ms). */
  since: number;
  /** When the episode was last named. */
  namedAt: number;
  /** Failed commands since it was last named. */
  failures: number;
  /** The latest failure's reason. */
  reason: string;
}

export interface OutageLine {
  event: 'store.unreachable' | 'store.reachable';
  fields: Record<string, unknown>;
}

export function outageOnFault(
  state: Outage | null,
  fault: { op: string; reason: string },
  now: number,
  everyMs: number = OUTAGE_LINE_EVERY_MS,
): { state: Outage; line?: OutageLine } {
  if (!state) {
    return {
      state: { since: now, namedAt: now, failures: 0, reason: fault.reason },
      line: { event: 'store.unreachable', fields: { op: fault.op, reason: fault.reason, sinceMs: 0, failures: 1 } },
    };
  }
  const failures = state.failures + 1;
  if (now - state.namedAt < everyMs) return { state: { ...state, failures, reason: fault.reason } };
  return {
    state: { ...state, namedAt: now, failures: 0, reason: fault.reason },
    line: { event: 'store.unreachable', fields: { op: fault.op, reason: fault.reason, sinceMs: now - state.since, failures, still: true } },
  };
}

export function outageOnAnswer(state: Outage | null, now: number): { state: null; line?: OutageLine } {
  if (!state) return { state: null };
  return { state: null, line: { event: 'store.reachable', fields: { downMs: now - state.since, lastReason: state.reason } } };
}
