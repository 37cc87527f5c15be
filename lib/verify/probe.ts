/**
 * Post-deploy verification: signed synthetic deliveries that the copies
 * claim like any other but that run no listener (their event type is
 * autohub's own), so nothing is posted to Slack. Needs only the signing
 * secret, never a bot token.
 */
import { PROBE_EVENT_TYPE } from '../delivery/index.js';
import { signedHeaders } from '../slack/index.js';

export interface ProbeAnswer {
  target: string;
  what: string;
  status: number | 'unreachable' | 'timeout';
  route: string | null;
  role: string | null;
  instance: string | null;
  claim: string | null;
  ms: number;
}

export function probeBody(eventId: string, now: number): string {
  return JSON.stringify({
    token: 'autohub-verify',
    team_id: 'T0VERIFY',
    api_app_id: 'A0VERIFY',
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(now / 1000),
    event: { type: PROBE_EVENT_TYPE, event_ts: String(now / 1000) },
  });
}

export async function sendProbe(
  target: string,
  what: string,
  o: { secret: string; eventId: string; retryNum?: number; timeoutMs?: number; now?: () => number },
): Promise<ProbeAnswer> {
  const now = o.now ?? Date.now;
  const body = probeBody(o.eventId, now());
  const started = performance.now();
  const signal = AbortSignal.timeout(o.timeoutMs ?? 5000);
  try {
    const response = await fetch(`${target}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(await signedHeaders(o.secret, body, now())),
        ...(o.retryNum ? { 'x-slack-retry-num': String(o.retryNum), 'x-slack-retry-reason': 'http_timeout' } : {}),
      },
      body,
      signal,
    });
    await response.arrayBuffer();
    const h = (name: string) => response.headers.get(name);
    return {
      target,
      what,
      status: response.status,
      route: h('x-autohub-route'),
      role: h('x-autohub-role'),
      instance: h('x-autohub-instance'),
      claim: h('x-autohub-claim'),
      ms: performance.now() - started,
    };
  } catch {
    return {
      target,
      what,
      status: signal.aborted ? 'timeout' : 'unreachable',
      route: null,
      role: null,
      instance: null,
      claim: null,
      ms: performance.now() - started,
    };
  }
}

export interface HealthAnswer {
  target: string;
  status: number | 'unreachable' | 'timeout';
  body: Record<string, unknown> | null;
  ms: number;
}

export async function readHealth(target: string, token?: string, timeoutMs = 3000): Promise<HealthAnswer> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(`${target}/slack/health`, { signal, headers: token ? { authorization: `Bearer ${token}` } : {} });
    let body: Record<string, unknown> | null = null;
    try {
      body = (await response.json()) as Record<string, unknown>;
    } catch {
      body = null;
    }
    return { target, status: response.status, body, ms: performance.now() - started };
  } catch {
    return { target, status: signal.aborted ? 'timeout' : 'unreachable', body: null, ms: performance.now() - started };
  }
}
