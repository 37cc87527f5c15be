/**
 * The time an awaited claim may take before the receiver acks anyway.
 *
 * Default: 2 attempts x 450 ms + 50 ms backoff = 950 ms, under the adapter's
 * own deadline of 1,000 ms. That leaves the receiver answering within about
 * 1.05 s even when Redis hangs, which fits inside the edge's 1.4 s hub leg and
 * 1.3 s cloud leg (and so inside Slack's 3 s).
 */
export interface ClaimBudget {
  /** The fuse of one command: each attempt gets a fresh `AbortSignal.timeout(attemptMs)`. @default 450 */
  attemptMs: number;
  /** Attempts per claim. @default 2 */
  attempts: number;
  /** Pause between attempts. @default 50 */
  backoffMs: number;
}

export const DEFAULT_CLAIM_BUDGET: ClaimBudget = { attemptMs: 450, attempts: 2, backoffMs: 50 };

/** attempts x attemptMs + (attempts - 1) x backoffMs, plus 50 ms of slack for the adapter's own deadline. */
export function claimDeadlineMs(budget: ClaimBudget): number {
  return budget.attempts * budget.attemptMs + (budget.attempts - 1) * budget.backoffMs + 50;
}
