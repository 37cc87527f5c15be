/**
 * What a claim reply means. Pure.
 *
 * A duplicate is a positive answer: the claim script says `held:<nonce>` only
 * when a key exists, with the holder's nonce read from it. Every other reply
 * (`null`, `{}` decoded to `null`, `"Aborted"`, an empty array, an `OK` that
 * a proxy left unencoded) is an indeterminate write: the delivery runs
 * (fail-open) and the reply is reported (seed 003).
 */
export type ClaimOutcome =
  /**
   * `token`: the lease's fencing token, when the claim holds a lease.
   * `admitted`: the claim made the turn's first look at its conversation's
   * gate too (it was alone in its thread's order) and let it run: the gate
   * does not look again (`ClaimOptions.firstLook`).
   */
  | { kind: 'claimed'; token?: number; admitted?: true }
  | { kind: 'duplicate' }
  /**
   * `nonce`: for a leased claim, the nonce its write carried: the claim may
   * have landed after all (a timeout is no "no"), and `confirm` asks about it
   * once the store answers again.
   */
  | { kind: 'fail-open'; reason: string; nonce?: string };

export type ClaimKind = ClaimOutcome['kind'];

export const CLAIMED: ClaimOutcome = Object.freeze({ kind: 'claimed' });
export const DUPLICATE: ClaimOutcome = Object.freeze({ kind: 'duplicate' });

export function failOpen(reason: string): ClaimOutcome {
  return { kind: 'fail-open', reason };
}

/** A reply, shown short in a log line: its shape, never stored text. */
export function describeReply(reply: unknown): string {
  if (reply === undefined) return 'undefined';
  if (reply === null) return 'null';
  if (Array.isArray(reply)) return `an array of ${reply.length}`;
  if (typeof reply === 'string') return `a string of ${reply.length} characters`;
  return typeof reply;
}

/** The claim script's reply: `[status, 'go'?, field, reopenAt, field, reopenAt, ...]` ('go': admitted by the claim). */
export interface ClaimReply {
  outcome: ClaimOutcome;
  /** Shared rate-limit windows still closed, read in the same round trip. */
  windows: Map<string, number>;
}

export function classifyClaimReply(reply: unknown, token: number | undefined): ClaimReply {
  const windows = new Map<string, number>();
  if (!Array.isArray(reply) || reply.length === 0 || typeof reply[0] !== 'string') {
    return { outcome: failOpen(`unexpected claim reply: ${describeReply(reply)}`), windows };
  }
  const status = reply[0];
  // The windows come in pairs: a 'go' before them makes the length even.
  const admitted = status === 'claimed' && reply[1] === 'go' && reply.length % 2 === 0;
  for (let i = admitted ? 2 : 1; i + 1 < reply.length; i += 2) {
    const at = Number(reply[i + 1]);
    if (typeof reply[i] === 'string' && Number.isFinite(at)) windows.set(reply[i] as string, at);
  }
  // `mine`: a retry found our own first write, whose reply was lost.
  if (status === 'claimed' || status === 'mine') {
    if (admitted && token !== undefined) return { outcome: { kind: 'claimed', token, admitted: true }, windows };
    return { outcome: token === undefined ? CLAIMED : { kind: 'claimed', token }, windows };
  }
  if (status.startsWith('held:') && status.length > 'held:'.length) return { outcome: DUPLICATE, windows };
  return { outcome: failOpen(`unexpected claim status: ${describeReply(status)}`), windows };
}
