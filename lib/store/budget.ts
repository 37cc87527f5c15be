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

/**
 * The fuse of every other store command (AUTOHUB_STORE_ATTEMPT_MS): confirms,
 * renewals, commits before writes, looks, steps, finishes. They are off
 * Slack's 3 s ack path, so they may wait longer than a claim: with the
 * claim's 450 ms, a store whose round trips take 500 ms answered none of
 * them, and no copy could prove it held a turn. 2,000 ms fits inside the
 * default lease's commit margin (min(2 s, 10 s / 4)) and inside a renewal
 * period of 3 s.
 */
export const DEFAULT_COMMAND_MS = 2000;

/** A bounded command's own deadline over its fuse: the requester's fuse fires first, this catches a fuse that did not. */
export const FUSE_SLACK_MS = 50;

/** attempts x attemptMs + (attempts - 1) x backoffMs, plus 50 ms of slack for the adapter's own deadline. */
export function claimDeadlineMs(budget: ClaimBudget): number {
  return budget.attempts * budget.attemptMs + (budget.attempts - 1) * budget.backoffMs + FUSE_SLACK_MS;
}
