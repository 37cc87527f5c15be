/** What a run's span says of it, read from the runner's turn (its delivery, log fields and Slack's retry header). Pure. */
import type { RunStart } from './tracer.js';

export interface TracedTurn {
  delivery: { kind: string; claimKeys: readonly string[]; body: Record<string, unknown> };
  logFields: Record<string, unknown>;
  retry: { retryNum: number | undefined };
}

/** The run's start, or undefined for a delivery with no claim key (nothing to derive its trace from). */
export function runStartOf(t: TracedTurn): RunStart | undefined {
  const key = t.delivery.claimKeys[0];
  if (key === undefined) return undefined;
  const f = t.logFields;
  const route = f.takeover !== undefined ? String(f.takeover) : f.recovered ? 'recovered' : f.catchup ? 'injected' : 'live';
  const eventId = typeof t.delivery.body.event_id === 'string' ? t.delivery.body.event_id : undefined;
  return {
    key,
    eventId,
    route,
    kind: t.delivery.kind,
    ...(typeof f.attempt === 'number' ? { attempt: f.attempt } : {}),
    ...(t.retry.retryNum !== undefined ? { slackRetry: t.retry.retryNum } : {}),
  };
}
