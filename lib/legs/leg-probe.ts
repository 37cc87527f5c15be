/**
 * One leg proven end to end: a signed probe (claimed like any event, no
 * listener runs, nothing visible in Slack) posted to the edge's public URL
 * with LEG_HEADER, so the edge sends it to that copy alone. What must hold is
 * what `npm run verify` checks of a first delivery: accepted, served by that
 * leg's copy, and claimed (the copy reached the shared store).
 */
import { EVENTS_PATH } from '../slack/index.js';
import { LEG_HEADER, PROBE_EVENT_TYPE, signedSynthetic, type LegName } from '../synthetic/index.js';
import type { LegCheck } from './leg-record.js';

/** What came back from the edge. */
export type LegAnswer =
  | { kind: 'answered'; status: number; route: string | null; role: string | null; claim: string | null; body: string }
  | { kind: 'timeout' }
  | { kind: 'unreachable' };

/** Pure: the edge's answer to a probe pinned to `leg`, judged. */
export function judgeLeg(leg: LegName, a: LegAnswer): LegCheck {
  if (a.kind !== 'answered') return { ok: false, reason: `the edge: ${a.kind}` };
  if (a.status < 200 || a.status >= 300) {
    // The edge's 503 says what the leg itself answered ("cloud leg: HTTP 500").
    const said = a.route === 'none' && a.body ? a.body.slice(0, 80) : '';
    return { ok: false, reason: `HTTP ${a.status}${said ? ` (${said})` : ''}` };
  }
  if (a.route !== leg || a.role !== leg)
    return { ok: false, reason: `served by ${a.role ?? 'nobody'} via ${a.route ?? '?'}: the edge does not honour ${LEG_HEADER} (redeploy it)` };
  if (a.claim !== 'claimed') return { ok: false, reason: `claim "${a.claim ?? '-'}", not "claimed": the ${leg} copy cannot reach the shared store` };
  return { ok: true };
}

export interface ProbeLegOptions {
  edgeUrl: string;
  signingSecret: string;
  /** Unique per check. */
  eventId: string;
  now: number;
  timeoutMs: number;
  fetch: typeof fetch;
}

export async function probeLeg(leg: LegName, o: ProbeLegOptions): Promise<LegCheck> {
  const { body, headers } = await signedSynthetic(o.signingSecret, PROBE_EVENT_TYPE, o.eventId, o.now);
  const signal = AbortSignal.timeout(o.timeoutMs);
  let answer: LegAnswer;
  try {
    const response = await o.fetch(`${o.edgeUrl}${EVENTS_PATH}`, { method: 'POST', headers: { ...headers, [LEG_HEADER]: leg }, body, signal });
    const text = await response.text();
    const h = (name: string) => response.headers.get(name);
    answer = { kind: 'answered', status: response.status, route: h('x-autohub-route'), role: h('x-autohub-role'), claim: h('x-autohub-claim'), body: text };
  } catch {
    answer = signal.aborted ? { kind: 'timeout' } : { kind: 'unreachable' };
  }
  return judgeLeg(leg, answer);
}
