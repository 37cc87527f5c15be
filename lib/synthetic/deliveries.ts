/**
 * autohub's own signed deliveries: Slack's v0 signature over an
 * `event_callback` whose inner type Slack never sends. Worker-safe (Web
 * Crypto only), so the edge and the copies share one definition.
 *
 * - A **probe** (`npm run verify`, the leg checks): claimed like any event,
 *   no listener runs, nothing is posted.
 * - A **hint** (edge -> the copy that did not ack): "a turn's lease is live
 *   at the other copy; look when it would lapse". Never claimed, costs the
 *   copy no store command until its reaper looks.
 */
import { signedHeaders } from '../slack/index.js';

/** `npm run verify`'s and the leg checks' event type: claimed like any event, no turn runs. */
export const PROBE_EVENT_TYPE = 'autohub_verify_probe';
/** The edge's hint to a copy: a turn's lease is live at the other one. */
export const HINT_EVENT_TYPE = 'autohub_turn_hint';
/**
 * A copy that claimed an event with a lease says so in its answer (the lease
 * in ms): the edge then hints the other copy. Absent for probes, duplicates,
 * fail-open claims and bodies too large to store: nothing to take over.
 */
export const LEASE_HEADER = 'x-autohub-lease';
/**
 * The edge's word on a delivery it forwards: its inbox holds deliveries it kept since it last told a copy
 * (that copy drains now, not at its next hourly look). Costs no store command on either side.
 */
export const INBOX_HEADER = 'x-autohub-inbox';
/**
 * On a signed probe only, `hub` or `cloud`: the edge sends it to that copy
 * alone (no failover), so each leg can be proven on its own.
 */
export const LEG_HEADER = 'x-autohub-leg';

export type LegName = 'hub' | 'cloud';
export const LEGS: readonly LegName[] = ['hub', 'cloud'];

/** The envelope of a synthetic delivery of `type`. */
export function syntheticBody(type: string, eventId: string, now: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    token: 'autohub-synthetic',
    team_id: 'T0VERIFY',
    api_app_id: 'A0VERIFY',
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(now / 1000),
    event: { type, event_ts: String(now / 1000), ...extra },
  });
}

/** A synthetic delivery signed at `now`, ready to POST to `/slack/events`. */
export async function signedSynthetic(
  secret: string,
  type: string,
  eventId: string,
  now: number,
  extra: Record<string, unknown> = {},
): Promise<{ body: string; headers: Record<string, string> }> {
  const body = syntheticBody(type, eventId, now, extra);
  return { body, headers: { 'content-type': 'application/json', ...(await signedHeaders(secret, body, now)) } };
}

const decoder = new TextDecoder();

/**
 * The leg a verified request asks for: only `hub` or `cloud` in LEG_HEADER,
 * and only on a probe (a delivery that runs nothing), so a real delivery can
 * never be pinned away from the failover path. The body is parsed only when
 * the header is there. Pure.
 */
export function pinnedLeg(header: string | null, body: Uint8Array): LegName | undefined {
  if (header !== 'hub' && header !== 'cloud') return undefined;
  try {
    const parsed = JSON.parse(decoder.decode(body)) as { type?: unknown; event?: { type?: unknown } };
    return parsed.type === 'event_callback' && parsed.event?.type === PROBE_EVENT_TYPE ? header : undefined;
  } catch {
    return undefined;
  }
}
