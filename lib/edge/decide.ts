/**
 * Where a delivery goes. Pure functions of plain data and `now`.
 */

/** What one leg (a forward or the probe) came back with. */
export type LegResult =
  /** `busy`: the copy's `x-autohub-busy`, turns waiting there (it claimed nothing). */
  { kind: 'answered'; status: number; busy?: number } | { kind: 'timeout' } | { kind: 'unreachable' };

export type FirstStep = 'hub' | 'probe' | 'cloud';

/**
 * A first delivery always tries the hub. A retry goes to the cloud when the
 * hub failed recently (a fresh down mark); otherwise a fresh health probe
 * decides, because a cached "down" that outlives Slack's retries is exactly
 * the hole that dropped mentions (seed 000), and a blind ack of a retry can
 * drop a turn nobody took.
 */
export function firstStep(input: { isRetry: boolean; hubDownAt: number | undefined; now: number; downTtlMs: number }): FirstStep {
  if (!input.isRetry) return 'hub';
  const fresh = input.hubDownAt !== undefined && input.now - input.hubDownAt < input.downTtlMs;
  return fresh ? 'cloud' : 'probe';
}

/**
 * A hub that answered has spoken, and its answer is Slack's, unless the edge
 * verified the signature itself: then a 401 or 403 means the hub cannot
 * check what the edge just checked (a stale signing secret on the Mac), and
 * the delivery goes to the cloud copy like any other failure (else one
 * stale secret on the Mac would drop every mention).
 * A 5xx always fails over.
 */
export function hubAnswered(result: LegResult, verifiedHere = false): boolean {
  if (result.kind !== 'answered' || result.status >= 500) return false;
  return !(verifiedHere && (result.status === 401 || result.status === 403));
}

/**
 * The hub is up but has a backlog: it answered 503 with `x-autohub-busy`
 * before claiming anything, so the delivery goes to the cloud copy and the
 * hub is not marked down (the next delivery tries it again). Resolves with
 * the turns waiting there; undefined when the hub is not busy.
 */
export function hubBusy(result: LegResult): number | undefined {
  return result.kind === 'answered' && result.status === 503 ? result.busy : undefined;
}

/** Why the hub leg failed, as the edge's health and the status page show it. */
export function hubFailure(result: LegResult): string {
  return result.kind === 'answered' && result.status < 500 ? `hub refusing (${result.status})` : `hub ${describe(result)}`;
}

/**
 * A copy that answered 401 or 403 to a delivery the edge verified itself
 * refuses to serve (its signing secret is stale): the status, else undefined.
 */
export function refusalStatus(result: LegResult): 401 | 403 | undefined {
  return result.kind === 'answered' && (result.status === 401 || result.status === 403) ? result.status : undefined;
}

/** The probe says the hub may own the turn only with a 2xx. */
export function probeSaysUp(result: LegResult): boolean {
  return result.kind === 'answered' && result.status >= 200 && result.status < 300;
}

/** The cloud copy accepted the delivery (any 2xx or 4xx: 4xx is a verdict on the request). */
export function cloudAnswered(result: LegResult): boolean {
  return result.kind === 'answered' && result.status < 500;
}

/** A leg's timeout: its own, cut to what is left of the delivery's budget. */
export function legTimeout(ownMs: number, startedAt: number, now: number, budgetMs: number): number {
  return Math.max(0, Math.min(ownMs, budgetMs - (now - startedAt)));
}

export function describe(result: LegResult): string {
  return result.kind === 'answered' ? `HTTP ${result.status}` : result.kind;
}
