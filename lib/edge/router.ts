/**
 * The edge router: Web-standard Request in, Response out, so the same code
 * runs as the Cloudflare Worker and under `npm run edge` on Node.
 *
 * It never acks a delivery that no copy accepted: when the cloud leg fails
 * too, Slack gets 503 with `x-autohub-failover-target: cloud` (and no
 * `x-slack-no-retry`), so Slack retries and the retry is routed afresh.
 * Duplicates are stopped by the copies' shared claim, not guessed here.
 */
import { bearerMatches } from '../access/index.js';
import { checkSignature, EVENTS_PATH, HEALTH_PATH, isSslCheck } from '../slack/index.js';
import { CopyView } from './copy-view.js';
import { cloudAnswered, describe, firstStep, hubAnswered, hubBusy, hubFailure, legTimeout, probeSaysUp, refusalStatus, type LegResult } from './decide.js';
import type { EdgeSettings } from './settings.js';
import type { EdgeKeeper } from '../inbox/edge-keeper.js';
import { HINT_EVENT_TYPE, LEASE_HEADER, LEG_HEADER, pinnedLeg, signedSynthetic, type LegName } from '../synthetic/index.js';

export type Route = 'hub' | 'cloud' | 'inbox' | 'none';

export interface EdgeRouterOptions {
  settings: EdgeSettings;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default Date.now */
  now?: () => number;
  /** One line per routed delivery; no bodies, no secrets. @default none */
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Where a delivery no copy accepted is kept (lib/inbox); without it, such a delivery gets 503. @default none */
  inbox?: EdgeKeeper;
}

/** The Worker's execution context, or Node's stand-in: work that goes on after the answer. */
export interface EdgeContext {
  waitUntil(promise: Promise<unknown>): void;
}

export interface EdgeRouter {
  /** `ctx`: where the hint to the other copy goes on after Slack has its answer (without it, it is sent detached). */
  handle(request: Request, ctx?: EdgeContext): Promise<Response>;
  hub: CopyView;
  cloud: CopyView;
  /** Deliveries this isolate refused for their signature (a stale secret here refuses everything). */
  readonly signatureFailures: number;
}

/**
 * The body, read no further than `limit` bytes: undefined past it. A
 * Content-Length over the limit is refused before anything is read.
 */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) return undefined;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Headers that belong to one hop and are not forwarded. */
const HOP_HEADERS = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);

/**
 * Slack's headers, as sent. `x-autohub-*` are the edge's own words to a copy
 * (`x-autohub-failover` reaches the owner's status page): one a client set is
 * dropped, so only the edge speaks with them.
 */
function forwardHeaders(request: Request): Headers {
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name) && !name.startsWith('cf-') && !name.startsWith('x-autohub-')) headers.set(name, value);
  });
  return headers;
}

function answer(status: number, route: Route, body: string | null, extra: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { 'x-autohub-route': route, 'content-type': 'text/plain; charset=utf-8', ...extra },
  });
}

/** The hint to the copy that did not ack goes out after Slack has its answer, under a fuse of its own. */
const HINT_TIMEOUT_MS = 3000;

/** A second try on the cloud leg is made only with at least this much of the budget left. */
const MIN_SECOND_TRY_MS = 300;

interface Leg {
  result: LegResult;
  response?: Response;
}

async function inboxHealth(inbox: EdgeKeeper): Promise<Record<string, unknown>> {
  try {
    const { size, oldestAt, expired } = await inbox.stats();
    return { size, oldest: oldestAt === undefined ? null : new Date(oldestAt).toISOString(), expired: expired ?? 0, kept_here: inbox.keptHere };
  } catch {
    return { size: null, error: 'store unreachable', kept_here: inbox.keptHere };
  }
}

export function createEdgeRouter(options: EdgeRouterOptions): EdgeRouter {
  const { settings } = options;
  const send = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const inbox = options.inbox;
  // With an inbox, the legs leave its one write room inside the same budget (lib/inbox/settings.ts).
  const legBudgetMs = inbox ? Math.max(1, settings.budgetMs - inbox.timeoutMs) : settings.budgetMs;
  const hub = new CopyView();
  const cloud = new CopyView();
  let signatureFailures = 0;

  /** One forward or probe with a fresh timeout of its own; the body is read under the same timeout. */
  const leg = async (url: string, init: RequestInit, timeoutMs: number): Promise<Leg> => {
    if (timeoutMs <= 0) return { result: { kind: 'timeout' } };
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const upstream = await send(url, { ...init, signal, redirect: 'manual' });
      const body = await upstream.arrayBuffer();
      const response = new Response(upstream.status === 204 || upstream.status === 304 ? null : body, upstream);
      const busy = upstream.headers.get('x-autohub-busy');
      return { result: { kind: 'answered', status: upstream.status, ...(busy !== null && /^\d+$/.test(busy) ? { busy: Number(busy) } : {}) }, response };
    } catch {
      // Told apart by timeout-or-not, never by message: workerd and Node word failures differently.
      return { result: signal.aborted ? { kind: 'timeout' } : { kind: 'unreachable' } };
    }
  };

  const relay = (route: Route, response: Response): Response => {
    const out = new Response(response.body, response);
    out.headers.set('x-autohub-route', route);
    return out;
  };

  /**
   * `served` acked an event under a lease: tell the other copy, signed, so its reaper looks when that
   * lease would lapse (a copy that dies mid-turn with no traffic after it is then taken over a lease
   * later, not at the next idle look). After the answer: Slack's ack is never delayed by it.
   */
  const hint = (to: LegName, served: LegName, ctx: EdgeContext | undefined): void => {
    const task = (async () => {
      const signed = await signedSynthetic(settings.signingSecret, HINT_EVENT_TYPE, `hint-${crypto.randomUUID()}`, now(), { served_by: served });
      const sent = await leg(
        `${to === 'hub' ? settings.hubUrl : settings.cloudUrl}${EVENTS_PATH}`,
        { method: 'POST', headers: signed.headers, body: signed.body },
        HINT_TIMEOUT_MS,
      );
      if (sent.result.kind !== 'answered' || sent.result.status !== 200) log('edge.hint_failed', { to, result: describe(sent.result) });
    })().catch(() => {});
    if (ctx) ctx.waitUntil(task);
  };
  const leased = (response: Response) => response.status === 200 && response.headers.has(LEASE_HEADER);

  /** A probe pinned to one leg (LEG_HEADER): that copy alone, once, no failover and no change to what the edge knows of it. */
  const toLeg = async (name: LegName, init: RequestInit, startedAt: number): Promise<Response> => {
    const own = name === 'hub' ? settings.hubTimeoutMs : settings.cloudTimeoutMs;
    const { result, response } = await leg(
      `${name === 'hub' ? settings.hubUrl : settings.cloudUrl}${EVENTS_PATH}`,
      init,
      legTimeout(own, startedAt, now(), settings.budgetMs),
    );
    log('edge.leg_probe', { leg: name, result: describe(result) });
    if (result.kind === 'answered' && result.status < 500 && response) return relay(name, response);
    return answer(503, 'none', `${name} leg: ${describe(result)}`);
  };

  const handleDelivery = async (request: Request, ctx?: EdgeContext): Promise<Response> => {
    const startedAt = now();
    const body = await readLimited(request, settings.maxBodyBytes);
    if (!body) return answer(413, 'none', 'request body too large');
    // Slack's certificate check of a slash command URL comes unsigned; it runs nothing, so the edge answers it itself.
    if (isSslCheck(request.headers.get('content-type'), body)) return answer(200, 'none', null);
    // Verified before anything is routed, probed or forwarded: a forged retry header probes nothing.
    const check = await checkSignature({
      signingSecret: settings.signingSecret,
      timestamp: request.headers.get('x-slack-request-timestamp'),
      signature: request.headers.get('x-slack-signature'),
      body,
      now: now(),
    });
    if (!check.ok) {
      // Counted, so a stale secret here (every delivery refused) shows in the logs and the health body. No body, no header.
      signatureFailures += 1;
      log('edge.signature_failed', { reason: check.reason, count: signatureFailures });
      return answer(401, 'none', `signature ${check.reason}`);
    }
    const init: RequestInit = { method: 'POST', headers: forwardHeaders(request), body };
    const pinned = pinnedLeg(request.headers.get(LEG_HEADER), body);
    if (pinned) return toLeg(pinned, init, startedAt);
    const isRetry = request.headers.has('x-slack-retry-num');
    const fields: Record<string, unknown> = { retryNum: request.headers.get('x-slack-retry-num') ?? undefined };
    const remaining = (own: number) => legTimeout(own, startedAt, now(), legBudgetMs);

    /** No copy accepted it: kept in the inbox (200), or, when that fails too, 503 so Slack retries. */
    const noCopy = async (why: string): Promise<Response> => {
      if (inbox) {
        const timeoutMs = Math.min(inbox.timeoutMs, settings.budgetMs - (now() - startedAt));
        const kept = await inbox.keep(request, body, startedAt, timeoutMs);
        if (kept.kind !== 'failed' && kept.expired > 0) {
          // Never silently: each entry dropped for its age is counted here and in the store (the health body, /autohub status).
          log('edge.inbox_expired', { count: kept.expired, maxAgeMs: inbox.bounds.maxAgeMs });
        }
        if (kept.kind === 'kept') {
          log('edge.kept', { ...fields, why, size: kept.size, ms: now() - startedAt });
          return kept.response;
        }
        if (kept.kind === 'full') {
          log('edge.inbox_full', {
            ...fields,
            why,
            bound: 'count',
            size: kept.size,
            max: kept.maxCount,
            detail: 'the inbox holds AUTOHUB_INBOX_MAX deliveries: 503, Slack retries an event; a command or click is lost',
          });
        } else log('edge.inbox_failed', { ...fields, why, inbox: kept.why, timeoutMs, ms: now() - startedAt });
      }
      return answer(503, 'none', 'no copy accepted this delivery; retry', { 'x-autohub-failover-target': 'cloud' });
    };

    const toCloud = async (why: string): Promise<Response> => {
      // The cloud copy learns why it got this delivery: it looks for the hub's lapsed leases, and its status page says why.
      const headers = new Headers(init.headers);
      headers.set('x-autohub-failover', why);
      let result: LegResult = { kind: 'unreachable' };
      // Behind Railway's balancer a replica that is gone answers 502; another may serve, and the
      // shared claim makes a second try safe. Two tries at most, each within what is left of the budget.
      for (let attempt = 1; attempt <= 2; attempt++) {
        const timeout = remaining(settings.cloudTimeoutMs);
        if (attempt > 1 && timeout < MIN_SECOND_TRY_MS) break;
        const leg_ = await leg(`${settings.cloudUrl}${EVENTS_PATH}`, { ...init, headers }, timeout);
        result = leg_.result;
        if (cloudAnswered(result) && leg_.response) {
          // A 401 or 403 after the edge verified the signature: the copy cannot check it (a stale secret there), not up.
          const refusing = refusalStatus(result);
          if (refusing !== undefined) cloud.markRefusing(now(), refusing, `cloud refusing (${refusing})`);
          else cloud.markUp(now());
          log('edge.routed', {
            ...fields,
            route: 'cloud',
            why,
            attempt,
            status: result.kind === 'answered' ? result.status : undefined,
            ms: now() - startedAt,
          });
          // A hub marked down is not hinted (it is why the cloud served); a busy one is alive and may outlive the cloud's turn.
          if (leased(leg_.response) && hub.downAt === undefined) hint('hub', 'cloud', ctx);
          return relay('cloud', leg_.response);
        }
        if (result.kind === 'timeout') break;
      }
      cloud.markDown(now(), describe(result));
      log('edge.failover_failed', { ...fields, why, cloud: describe(result), ms: now() - startedAt });
      return noCopy(why);
    };

    const toHub = async (): Promise<Response> => {
      const { result, response } = await leg(`${settings.hubUrl}${EVENTS_PATH}`, init, remaining(settings.hubTimeoutMs));
      if (hubAnswered(result, true) && response) {
        hub.markUp(now());
        log('edge.routed', { ...fields, route: 'hub', status: result.kind === 'answered' ? result.status : undefined, ms: now() - startedAt });
        if (leased(response)) hint('cloud', 'hub', ctx);
        return relay('hub', response);
      }
      const waiting = hubBusy(result);
      if (waiting !== undefined) {
        // Up, with a backlog: the cloud copy takes this one; the hub is asked again next time.
        hub.markUp(now());
        return toCloud(`hub busy (${waiting} waiting)`);
      }
      const why = hubFailure(result);
      const refusing = refusalStatus(result);
      if (refusing !== undefined) hub.markRefusing(now(), refusing, why);
      else hub.markDown(now(), why);
      return toCloud(why);
    };

    const step = firstStep({ isRetry, hubDownAt: hub.downAt, now: now(), downTtlMs: settings.downTtlMs });
    if (step === 'hub') return toHub();
    if (step === 'cloud') return toCloud('hub marked down');
    // Only the status code decides; the token (when set) is sent as to any trusted caller of the health route.
    const probeHeaders: Record<string, string> = settings.healthToken ? { authorization: `Bearer ${settings.healthToken}` } : {};
    const probe = await leg(`${settings.hubUrl}${HEALTH_PATH}`, { method: 'GET', headers: probeHeaders }, remaining(settings.probeTimeoutMs));
    if (probeSaysUp(probe.result)) return toHub();
    hub.markDown(now(), `probe ${describe(probe.result)}`);
    return toCloud(`probe ${describe(probe.result)}`);
  };

  const handle = async (request: Request, ctx?: EdgeContext): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (path === HEALTH_PATH && (request.method === 'GET' || request.method === 'HEAD')) {
      // The copies' state and failure reasons only with the health token; the status to anyone.
      const full = bearerMatches(request.headers.get('authorization'), settings.healthToken);
      // The inbox's size, oldest entry and drops cost one store command: asked only with the token.
      const kept = full && inbox ? await inboxHealth(inbox) : undefined;
      const body = JSON.stringify(
        full
          ? { status: 'ok', role: 'edge', hub: hub.toJSON(), cloud: cloud.toJSON(), signature_failures: signatureFailures, ...(kept ? { inbox: kept } : {}) }
          : { status: 'ok' },
      );
      return new Response(request.method === 'HEAD' ? null : body, {
        headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-autohub-route': 'none' },
      });
    }
    if (path !== EVENTS_PATH) return answer(404, 'none', 'not found');
    if (request.method !== 'POST') return answer(405, 'none', 'POST only', { allow: 'POST' });
    try {
      return await handleDelivery(request, ctx);
    } catch (error) {
      log('edge.error', { error: error instanceof Error ? error.message : String(error) });
      return answer(503, 'none', 'edge error; retry', { 'x-autohub-failover-target': 'cloud' });
    }
  };

  return {
    handle,
    hub,
    cloud,
    get signatureFailures() {
      return signatureFailures;
    },
  };
}
