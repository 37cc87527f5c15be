/**
 * One leg of a delivery: a forward to a copy, or the health probe, each under
 * a timeout of its own; and the Responses the edge builds around one.
 */
import { LEASE_HEADER } from '../synthetic/index.js';
import type { LegResult } from './decide.js';

/** Which way a delivery went, in `x-autohub-route`. */
export type Route = 'hub' | 'cloud' | 'inbox' | 'none';

/** What a leg came back with, and the copy's answer when it answered (its body read in full). */
export interface Leg {
  result: LegResult;
  response?: Response;
  /** A leg that timed out while given time to spare (`lateMs`): its answer, should it come within it. */
  late?: Promise<LateLeg | undefined>;
}

/** A copy's answer that came after its leg's timeout, its body read. */
export interface LateLeg {
  response: Response;
  body: ArrayBuffer;
}

/** Headers that belong to one hop and are not forwarded. */
const HOP_HEADERS = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);

/**
 * One forward or probe with a fresh timeout of its own; the body is read
 * under the same timeout. A timeout of 0 or less sends nothing. With
 * `lateMs`, a leg that times out is not cut: its answer is still read for
 * that much longer, as `late` (lib/edge/late-answer.ts).
 */
export async function callLeg(send: typeof fetch, url: string, init: RequestInit, timeoutMs: number, lateMs = 0): Promise<Leg> {
  if (timeoutMs <= 0) return { result: { kind: 'timeout' } };
  const signal = AbortSignal.timeout(timeoutMs + Math.max(0, lateMs));
  const answered = (async () => {
    const upstream = await send(url, { ...init, signal, redirect: 'manual' });
    return { response: upstream, body: await upstream.arrayBuffer() };
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = lateMs > 0 ? new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs))) : undefined;
  try {
    const first = timedOut ? await Promise.race([answered, timedOut]) : await answered;
    if (first === 'timeout') return { result: { kind: 'timeout' }, late: answered.catch(() => undefined) };
    const { response: upstream, body } = first;
    const response = new Response(upstream.status === 204 || upstream.status === 304 ? null : body, upstream);
    const busy = upstream.headers.get('x-autohub-busy');
    return { result: { kind: 'answered', status: upstream.status, ...(busy !== null && /^\d+$/.test(busy) ? { busy: Number(busy) } : {}) }, response };
  } catch {
    // Told apart by timeout-or-not, never by message: workerd and Node word failures differently.
    return { result: signal.aborted ? { kind: 'timeout' } : { kind: 'unreachable' } };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Slack's headers, as sent. `x-autohub-*` are the edge's own words to a copy
 * (`x-autohub-failover` reaches the owner's status page): one a client set is
 * dropped, so only the edge speaks with them.
 */
export function forwardHeaders(request: Request): Headers {
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name) && !name.startsWith('cf-') && !name.startsWith('x-autohub-')) headers.set(name, value);
  });
  return headers;
}

/** The edge's own answer. */
export function answer(status: number, route: Route, body: string | null, extra: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { 'x-autohub-route': route, 'content-type': 'text/plain; charset=utf-8', ...extra },
  });
}

/** A copy's answer, passed on to Slack with the route it took. */
export function relay(route: Route, response: Response): Response {
  const out = new Response(response.body, response);
  out.headers.set('x-autohub-route', route);
  return out;
}

/** The copy acked an event under a lease (`LEASE_HEADER`): the other copy is hinted. */
export function leased(response: Response): boolean {
  return response.status === 200 && response.headers.has(LEASE_HEADER);
}
