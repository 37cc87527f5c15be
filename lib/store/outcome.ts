/**
 * What a claim reply means. Pure.
 *
 * Only the `null` reply of SET NX (the key exists) may close the gate. Every
 * other reply is an indeterminate write: the delivery runs (fail-open) and the
 * reply is reported. A 200-shaped artifact such as `"Aborted"`, which older
 * @upstash/redis versions fabricate when a static signal fires, is not a
 * success and not a duplicate (seed 003).
 */
export type ClaimOutcome =
  /** `token`: the lease's fencing token, when the claim holds a lease. */
  | { kind: 'claimed'; token?: number }
  | { kind: 'duplicate' }
  | { kind: 'fail-open'; reason: string };

export type ClaimKind = ClaimOutcome['kind'];

export const CLAIMED: ClaimOutcome = Object.freeze({ kind: 'claimed' });
export const DUPLICATE: ClaimOutcome = Object.freeze({ kind: 'duplicate' });

export function failOpen(reason: string): ClaimOutcome {
  return { kind: 'fail-open', reason };
}

function describe(reply: unknown): string {
  if (reply === undefined) return 'undefined';
  try {
    const text = JSON.stringify(reply);
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  } catch {
    return typeof reply;
  }
}

/** The meaning of one SET NX reply. */
export function classifySetNxReply(reply: unknown): ClaimOutcome {
  if (reply === 'OK') return CLAIMED;
  if (reply === null) return DUPLICATE;
  return failOpen(`unexpected SET NX reply ${describe(reply)}`);
}

/**
 * One outcome for a delivery claimed under several keys (its event id and its
 * message alias). A definite `null` on any key is a duplicate: another copy
 * owns that key. All keys `OK` is a claim. Anything else fails open.
 */
export function combineOutcomes(outcomes: readonly ClaimOutcome[]): ClaimOutcome {
  if (outcomes.length === 0) return failOpen('no claim keys');
  if (outcomes.some((o) => o.kind === 'duplicate')) return DUPLICATE;
  const open = outcomes.find((o) => o.kind === 'fail-open');
  return open ?? CLAIMED;
}
