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
import { answeredWithMessage, commandResponseUrl, LATE_ANSWER_MS, lateMessage } from './late-answer.js';
import { answer, callLeg, forwardHeaders, leased, relay, type LateLeg, type Leg } from './leg.js';
import { cloudAnswered, describe, firstStep, hubAnswered, hubBusy, hubFailure, legTimeout, probeSaysUp, refusalStatus, type LegResult } from './decide.js';
import type { EdgeSettings } from './settings.js';
import type { EdgeKeeper } from '../inbox/edge-keeper.js';
import { HINT_EVENT_TYPE, INBOX_HEADER, LEG_HEADER, pinnedLeg, signedSynthetic, type LegName } from '../synthetic/index.js';

export type { Route } from './leg.js';

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

/** The hint to the copy that did not ack goes out after Slack has its answer, under a fuse of its own. */
const HINT_TIMEOUT_MS = 3000;

/** A second try on the cloud leg is made only with at least this much of the budget left. */
const MIN_SECOND_TRY_MS = 300;

async function inboxHealth(inbox: EdgeKeeper): Promise<Record<string, unknown>> {
  try {
    const { size, oldestAt, expired, refused } = await inbox.stats();
    const keyId = await inbox.keyId();
    return {
      ...(keyId ? { store_key_id: keyId } : {}),
      size,
      oldest: oldestAt === undefined ? null : new Date(oldestAt).toISOString(),
      expired: expired ?? 0,
      refused: refused ?? 0,
      kept_here: inbox.keptHere,
    };
  } catch {
    return { size: null, error: 'store unreachable', kept_here: inbox.keptHere };
  }
}

export function createEdgeRouter(options: EdgeRouterOptions): EdgeRouter {
  return new Router(options);
}

/** A delivery whose signature the edge verified: what every stage after the check reads. */
interface Delivery {
  request: Request;
  /** Where work after the answer goes on (the hint). */
  ctx: EdgeContext | undefined;
  body: Uint8Array<ArrayBuffer>;
  /** The forward as either copy gets it. */
  init: RequestInit;
  /** It carries INBOX_HEADER: the copy that accepts it is told the inbox holds deliveries. */
  tellsInbox: boolean;
  startedAt: number;
  /** What each log line about it carries. */
  fields: Record<string, unknown>;
  /** A slash command's response_url: a leg that times out is still read for its answer (lib/edge/late-answer.ts). */
  responseUrl: string | undefined;
  /** Those legs' answers, still to come. */
  late: Promise<LateLeg | undefined>[];
}

/**
 * The stages of a delivery, each handing on to the next: read and verify (`#admit`), route to the
 * legs (`#route`: the hub, the probe, the cloud), keep it in the inbox when no copy accepted it
 * (`#noCopy`), and answer Slack with what the copy that took it said (or the edge's own word).
 */
class Router implements EdgeRouter {
  readonly hub = new CopyView();
  readonly cloud = new CopyView();
  #signatureFailures = 0;
  readonly #settings: EdgeSettings;
  readonly #send: typeof fetch;
  readonly #now: () => number;
  readonly #log: (event: string, fields: Record<string, unknown>) => void;
  readonly #inbox: EdgeKeeper | undefined;
  /**
   * This isolate kept a delivery that no copy has been told of yet: the next delivery a copy accepts carries
   * INBOX_HEADER, and that copy drains the inbox then (within the next delivery, not its hourly look).
   */
  #keptUntold = false;
  /** With an inbox, the legs leave its one write room inside the same budget (lib/inbox/settings.ts). */
  readonly #legBudgetMs: number;

  constructor(options: EdgeRouterOptions) {
    const { settings } = options;
    this.#settings = settings;
    this.#send = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? (() => {});
    this.#inbox = options.inbox;
    this.#legBudgetMs = this.#inbox ? Math.max(1, settings.budgetMs - this.#inbox.timeoutMs) : settings.budgetMs;
  }

  get signatureFailures(): number {
    return this.#signatureFailures;
  }

  /** Bound, as the Node server and the tests take it: `serveFetchHandler(router.handle)`. */
  readonly handle = (request: Request, ctx?: EdgeContext): Promise<Response> => this.#handle(request, ctx);

  async #handle(request: Request, ctx: EdgeContext | undefined): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === HEALTH_PATH && (request.method === 'GET' || request.method === 'HEAD')) return this.#health(request);
    if (path !== EVENTS_PATH) return answer(404, 'none', 'not found');
    if (request.method !== 'POST') return answer(405, 'none', 'POST only', { allow: 'POST' });
    try {
      const admitted = await this.#admit(request, ctx);
      if (admitted instanceof Response) return admitted;
      const pinned = pinnedLeg(request.headers.get(LEG_HEADER), admitted.body);
      if (pinned) return await this.#toLeg(pinned, admitted);
      const routed = await this.#route(admitted);
      if (admitted.late.length > 0) await this.#passLate(admitted, routed);
      return routed;
    } catch (error) {
      this.#log('edge.error', { error: error instanceof Error ? error.message : String(error) });
      return answer(503, 'none', 'edge error; retry', { 'x-autohub-failover-target': 'cloud' });
    }
  }

  async #health(request: Request): Promise<Response> {
    const settings = this.#settings;
    // The copies' state and failure reasons only with the health token; the status to anyone.
    const full = bearerMatches(request.headers.get('authorization'), settings.healthToken);
    // The inbox's size, oldest entry and drops cost one store command: asked only with the token.
    const kept = full && this.#inbox ? await inboxHealth(this.#inbox) : undefined;
    const body = JSON.stringify(
      full
        ? {
            status: 'ok',
            role: 'edge',
            hub: this.hub.toJSON(),
            cloud: this.cloud.toJSON(),
            signature_failures: this.#signatureFailures,
            ...(kept ? { inbox: kept } : {}),
          }
        : { status: 'ok' },
    );
    return new Response(request.method === 'HEAD' ? null : body, {
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-autohub-route': 'none' },
    });
  }

  /** Read and verify: the delivery, or the edge's answer when it goes no further (too large, Slack's certificate check, a bad signature). */
  async #admit(request: Request, ctx: EdgeContext | undefined): Promise<Delivery | Response> {
    const settings = this.#settings;
    const startedAt = this.#now();
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
      now: this.#now(),
    });
    if (!check.ok) {
      // Counted, so a stale secret here (every delivery refused) shows in the logs and the health body. No body, no header.
      this.#signatureFailures += 1;
      this.#log('edge.signature_failed', { reason: check.reason, count: this.#signatureFailures });
      return answer(401, 'none', `signature ${check.reason}`);
    }
    return {
      request,
      ctx,
      body,
      init: { method: 'POST', headers: this.#forwarded(request), body },
      tellsInbox: this.#keptUntold,
      startedAt,
      fields: { retryNum: request.headers.get('x-slack-retry-num') ?? undefined },
      responseUrl: commandResponseUrl(request.headers.get('content-type'), body),
      late: [],
    };
  }

  /** The headers a leg gets: Slack's, and INBOX_HEADER while a delivery kept here is untold. */
  #forwarded(request: Request): Headers {
    const headers = forwardHeaders(request);
    if (this.#keptUntold) headers.set(INBOX_HEADER, 'kept');
    return headers;
  }

  /** A copy accepted a delivery: if it carried INBOX_HEADER, that copy was told. */
  #told(d: Delivery): void {
    if (d.tellsInbox) this.#keptUntold = false;
  }

  /** A probe pinned to one leg (LEG_HEADER): that copy alone, once, no failover and no change to what the edge knows of it. */
  async #toLeg(name: LegName, d: Delivery): Promise<Response> {
    const settings = this.#settings;
    const own = name === 'hub' ? settings.hubTimeoutMs : settings.cloudTimeoutMs;
    const { result, response } = await callLeg(
      this.#send,
      `${name === 'hub' ? settings.hubUrl : settings.cloudUrl}${EVENTS_PATH}`,
      d.init,
      legTimeout(own, d.startedAt, this.#now(), settings.budgetMs),
    );
    this.#log('edge.leg_probe', { leg: name, result: describe(result) });
    if (result.kind === 'answered' && result.status < 500 && response) return relay(name, response);
    return answer(503, 'none', `${name} leg: ${describe(result)}`);
  }

  /** The first leg (lib/edge/decide.ts, firstStep): the hub, the hub after a probe says it is up, or the cloud. */
  async #route(d: Delivery): Promise<Response> {
    const settings = this.#settings;
    const step = firstStep({
      isRetry: d.request.headers.has('x-slack-retry-num'),
      hubDownAt: this.hub.downAt,
      now: this.#now(),
      downTtlMs: settings.downTtlMs,
    });
    if (step === 'hub') return this.#toHub(d);
    if (step === 'cloud') return this.#toCloud(d, 'hub marked down');
    // Only the status code decides; the token (when set) is sent as to any trusted caller of the health route.
    const probeHeaders: Record<string, string> = settings.healthToken ? { authorization: `Bearer ${settings.healthToken}` } : {};
    const probe = await callLeg(
      this.#send,
      `${settings.hubUrl}${HEALTH_PATH}`,
      { method: 'GET', headers: probeHeaders },
      this.#remaining(d, settings.probeTimeoutMs),
    );
    if (probeSaysUp(probe.result)) return this.#toHub(d);
    this.hub.markDown(this.#now(), `probe ${describe(probe.result)}`);
    return this.#toCloud(d, `probe ${describe(probe.result)}`);
  }

  /** One leg of delivery `d`; a command's leg that times out is still read for its answer (`d.late`). */
  async #leg(d: Delivery, url: string, init: RequestInit, timeoutMs: number): Promise<Leg> {
    const leg = await callLeg(this.#send, url, init, timeoutMs, d.responseUrl ? LATE_ANSWER_MS : 0);
    if (leg.late) d.late.push(leg.late);
    return leg;
  }

  /**
   * A command's answer that came after the edge stopped waiting for its leg, passed on to its response_url
   * (lib/edge/late-answer.ts) after Slack has the edge's answer: once, and only when that answer carried
   * no message of a copy's. Unpassed, a command the hub answered in time by its clock, whose answer the
   * tunnel brought back past the leg's timeout, was answered nowhere: the cloud copy found it claimed.
   */
  async #passLate(d: Delivery, routed: Response): Promise<void> {
    const url = d.responseUrl;
    if (!url || (await answeredWithMessage(routed.headers.get('x-autohub-route'), routed))) return;
    const pass = async () => {
      for (const late of d.late) {
        const answer = await late;
        const message = lateMessage(answer?.response, answer?.body);
        if (message === undefined) continue;
        const sent = await this.#send(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: message,
          signal: AbortSignal.timeout(HINT_TIMEOUT_MS),
        })
          .then((r) => r.status)
          .catch(() => 0);
        this.#log(sent >= 200 && sent < 300 ? 'edge.late_answer_passed' : 'edge.late_answer_failed', {
          ...d.fields,
          status: sent,
          ms: this.#now() - d.startedAt,
        });
        return;
      }
    };
    const task = pass().catch(() => {});
    if (d.ctx) d.ctx.waitUntil(task);
  }

  async #toHub(d: Delivery): Promise<Response> {
    const { result, response } = await this.#leg(d, `${this.#settings.hubUrl}${EVENTS_PATH}`, d.init, this.#remaining(d, this.#settings.hubTimeoutMs));
    if (hubAnswered(result, true) && response) {
      this.hub.markUp(this.#now());
      this.#log('edge.routed', {
        ...d.fields,
        route: 'hub',
        status: result.kind === 'answered' ? result.status : undefined,
        ms: this.#now() - d.startedAt,
      });
      if (leased(response)) this.#hint('cloud', 'hub', d.ctx);
      this.#told(d);
      return relay('hub', response);
    }
    const waiting = hubBusy(result);
    if (waiting !== undefined) {
      // Up, with a backlog: the cloud copy takes this one; the hub is asked again next time.
      this.hub.markUp(this.#now());
      return this.#toCloud(d, `hub busy (${waiting} waiting)`);
    }
    const why = hubFailure(result);
    const refusing = refusalStatus(result);
    if (refusing !== undefined) this.hub.markRefusing(this.#now(), refusing, why);
    else this.hub.markDown(this.#now(), why);
    return this.#toCloud(d, why);
  }

  async #toCloud(d: Delivery, why: string): Promise<Response> {
    const settings = this.#settings;
    // The cloud copy learns why it got this delivery: it looks for the hub's lapsed leases, and its status page says why.
    const headers = new Headers(d.init.headers);
    headers.set('x-autohub-failover', why);
    let result: LegResult = { kind: 'unreachable' };
    // Behind Railway's balancer a replica that is gone answers 502; another may serve, and the
    // shared claim makes a second try safe. Two tries at most, each within what is left of the budget.
    for (let attempt = 1; attempt <= 2; attempt++) {
      const timeout = this.#remaining(d, settings.cloudTimeoutMs);
      if (attempt > 1 && timeout < MIN_SECOND_TRY_MS) break;
      const leg = await this.#leg(d, `${settings.cloudUrl}${EVENTS_PATH}`, { ...d.init, headers }, timeout);
      result = leg.result;
      if (cloudAnswered(result) && leg.response) return this.#cloudServed(d, why, attempt, result, leg.response);
      if (result.kind === 'timeout') break;
    }
    this.cloud.markDown(this.#now(), describe(result));
    this.#log('edge.failover_failed', { ...d.fields, why, cloud: describe(result), ms: this.#now() - d.startedAt });
    return this.#noCopy(d, why);
  }

  #cloudServed(d: Delivery, why: string, attempt: number, result: LegResult, response: Response): Response {
    // A 401 or 403 after the edge verified the signature: the copy cannot check it (a stale secret there), not up.
    const refusing = refusalStatus(result);
    if (refusing !== undefined) this.cloud.markRefusing(this.#now(), refusing, `cloud refusing (${refusing})`);
    else this.cloud.markUp(this.#now());
    this.#log('edge.routed', {
      ...d.fields,
      route: 'cloud',
      why,
      attempt,
      status: result.kind === 'answered' ? result.status : undefined,
      ms: this.#now() - d.startedAt,
    });
    // A hub marked down is not hinted (it is why the cloud served); a busy one is alive and may outlive the cloud's turn.
    if (leased(response) && this.hub.downAt === undefined) this.#hint('hub', 'cloud', d.ctx);
    this.#told(d);
    return relay('cloud', response);
  }

  /** No copy accepted it: kept in the inbox (200), or, when that fails too, 503 so Slack retries. */
  async #noCopy(d: Delivery, why: string): Promise<Response> {
    const inbox = this.#inbox;
    if (inbox) {
      const timeoutMs = Math.min(inbox.timeoutMs, this.#settings.budgetMs - (this.#now() - d.startedAt));
      const kept = await inbox.keep(d.request, d.body, d.startedAt, timeoutMs);
      if (kept.kind !== 'failed' && kept.expired > 0) {
        // Never silently: each entry dropped for its age is counted here and in the store (the health body, /autohub status).
        this.#log('edge.inbox_expired', { count: kept.expired, maxAgeMs: inbox.bounds.maxAgeMs });
      }
      if (kept.kind === 'kept') {
        this.#keptUntold = true;
        this.#log('edge.kept', { ...d.fields, why, size: kept.size, ms: this.#now() - d.startedAt });
        return kept.response;
      }
      if (kept.kind === 'full') {
        this.#log('edge.inbox_full', {
          ...d.fields,
          why,
          bound: 'count',
          size: kept.size,
          max: kept.maxCount,
          detail: 'the inbox holds AUTOHUB_INBOX_MAX deliveries: 503, Slack retries an event; a command or click is lost',
        });
      } else this.#log('edge.inbox_failed', { ...d.fields, why, inbox: kept.why, timeoutMs, ms: this.#now() - d.startedAt });
    }
    return answer(503, 'none', 'no copy accepted this delivery; retry', { 'x-autohub-failover-target': 'cloud' });
  }

  /**
   * `served` acked an event under a lease: tell the other copy, signed, so its reaper looks when that
   * lease would lapse (a copy that dies mid-turn with no traffic after it is then taken over a lease
   * later, not at the next idle look). After the answer: Slack's ack is never delayed by it.
   */
  #hint(to: LegName, served: LegName, ctx: EdgeContext | undefined): void {
    const task = this.#sendHint(to, served).catch(() => {});
    if (ctx) ctx.waitUntil(task);
  }

  async #sendHint(to: LegName, served: LegName): Promise<void> {
    const settings = this.#settings;
    const signed = await signedSynthetic(settings.signingSecret, HINT_EVENT_TYPE, `hint-${crypto.randomUUID()}`, this.#now(), { served_by: served });
    const sent = await callLeg(
      this.#send,
      `${to === 'hub' ? settings.hubUrl : settings.cloudUrl}${EVENTS_PATH}`,
      { method: 'POST', headers: signed.headers, body: signed.body },
      HINT_TIMEOUT_MS,
    );
    if (sent.result.kind !== 'answered' || sent.result.status !== 200) this.#log('edge.hint_failed', { to, result: describe(sent.result) });
  }

  /** What is left of the legs' budget for one with timeout `own`. */
  #remaining(d: Delivery, own: number): number {
    return legTimeout(own, d.startedAt, this.#now(), this.#legBudgetMs);
  }
}
