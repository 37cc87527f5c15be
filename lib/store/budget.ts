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
 * them, and no copy could prove it held a turn. With the default lease:
 * a renewal (every 3 s) that takes its whole 2,000 ms still answers 5 s
 * before the 10 s lease lapses (3 + 2 < 10), and a commit before a write
 * answered at its fuse leaves 6 s of the lease, past the commit margin
 * (10 - 2 - min(2, 10 / 4) = 6 > 0).
 */
export const DEFAULT_COMMAND_MS = 2000;

/** A bounded command's own deadline over its fuse: the requester's fuse fires first, this catches a fuse that did not. */
export const FUSE_SLACK_MS = 50;

/** attempts x attemptMs + (attempts - 1) x backoffMs, plus 50 ms of slack for the adapter's own deadline. */
export function claimDeadlineMs(budget: ClaimBudget): number {
  return budget.attempts * budget.attemptMs + (budget.attempts - 1) * budget.backoffMs + FUSE_SLACK_MS;
}
