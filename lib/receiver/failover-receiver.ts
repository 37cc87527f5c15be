/**
 * A Bolt Receiver that claims every delivery in the shared store before the
 * turn runs, so a delivery that reaches both copies, or one copy twice, runs
 * once. A duplicate never reaches Bolt (not authorize, not a listener).
 *
 * Order for `POST /slack/events`: size limit (413) -> signature, both
 * directions of the 5-minute window (401) -> parse (400/415) -> claim -> run.
 *
 * Budget, from the moment the request arrives:
 *   claim <= 1,000 ms (2 x 450 ms + 50 ms, the store's own deadline)
 *   answer <= ackDeadlineMs = 1,200 ms, whatever the listener does,
 *   under the edge's 1,400 ms hub leg and Slack's 3 s.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App, Receiver } from '@slack/bolt';
import type { ClaimKind, ClaimOutcome, Claims, LeaseRequest, Leases, LeaseSettings, RetryPolicy, Takeover } from '../store/index.js';
import { failOpen } from '../store/index.js';
import type { Role } from '../store/index.js';
import { RequestInvalidError } from '../errors/index.js';
import { answerThenLinger, guardRequests, serverOptions, serverTimeouts, type ServerTimeouts } from '../http/index.js';
import type { Logger } from '../log/index.js';
import { checkSignature, EVENTS_PATH, HEALTH_PATH, isSslCheck, parseRetryHeaders } from '../slack/index.js';
import { parseDelivery, type AppRateLimited, type Delivery } from './delivery.js';
import { withDeadline } from '../time/index.js';
import { AckGate } from './ack-gate.js';
import type { HealthMonitor } from './health.js';
import { bearerMatches } from '../access/index.js';
import { readRawBody } from './raw-body.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { TurnRunner, type DeadTurn, type Turn, type TurnRunnerOptions } from './turn-runner.js';
import type { TurnLease } from './turn-lease.js';
import { LEASE_HEADER } from '../synthetic/index.js';

export type { DeadTurn, TurnContext } from './turn-runner.js';

export { EVENTS_PATH, HEALTH_PATH };

export interface FailoverReceiverOptions {
  signingSecret: string;
  store: Claims & Pick<Leases, 'commit' | 'finish' | 'release' | 'deadLetter' | 'markStream' | 'restore'>;
  /** Keeps every lease of this copy alive, in one request per renewal. */
  keeper: LeaseKeeper;
  health: HealthMonitor;
  role: Role;
  instance: string;
  log: Logger;
  /** @default 1 MiB */
  maxBodyBytes?: number;
  /** Answer Slack by this many ms after arrival, whatever the turn does. @default 1200 */
  ackDeadlineMs?: number;
  /** How long `stop()` waits for turns in flight. @default 10000 */
  drainMs?: number;
  /** The bearer token that unlocks the full health body; without it only `{status}` is shown. */
  healthToken?: string | null;
  /** Event turns hold a lease another copy can take over. */
  lease: LeaseSettings;
  /** How a failed turn is tried again. */
  retry: RetryPolicy;
  /** Turns run at once. @default 16 */
  maxTurns?: number;
  /**
   * While this many turns wait here, new event deliveries are answered 503
   * with `x-autohub-busy` before any claim, and the edge gives them to the
   * cloud copy: the backlog is drained by whichever copy has room. 0: never. @default 0
   */
  shedAt?: number;
  /** A turn was handed back for a retry due in `ms`. */
  onRetry?: (ms: number) => void;
  /** A turn became a dead letter. */
  onDead?: (dead: DeadTurn) => void;
  /** A slot came free. */
  onIdle?: () => void;
  /** Acked turns the store would not take back at shutdown, or take for a retry (see TurnRunnerOptions.journal). */
  journal?: TurnRunnerOptions['journal'];
  /** Failed turns wait on the store, kept here (see TurnRunnerOptions.onWaitingOnStore). */
  onWaitingOnStore?: (count: number) => void;
  /** The handle each turn's listener answers through (see TurnRunnerOptions.handleFor). */
  handleFor?: TurnRunnerOptions['handleFor'];
  /** Before a turn takes a slot: its conversation's order (see TurnRunnerOptions.admit). */
  admit?: TurnRunnerOptions['admit'];
  /** A turn ended here (see TurnRunnerOptions.ended). */
  ended?: TurnRunnerOptions['ended'];
  /** The edge sent this delivery here because the hub failed (`x-autohub-failover`). */
  onFailover?: (reason: string) => void;
  /** Slack said it is dropping this app's events (`app_rate_limited`); answered 200 first. */
  onAppRateLimited?: (notice: AppRateLimited) => void;
  /** A live delivery's claim failed open (the store did not answer): its turn runs unfenced. */
  onFailOpen?: (reason: string) => void;
  /** From a request's first byte to its last header, then to its last body byte. @default 5 s, then the body limit at 64 KiB/s */
  timeouts?: Partial<ServerTimeouts>;
  /** The edge's signed hint: a turn's lease is live at the other copy (look when it would lapse). */
  onHint?: () => void;
  /** @default Date.now */
  now?: () => number;
}

/** node:crypto's HMAC: synchronous, no thread-pool hop per request. */
const nodeHmac = (secret: string, data: Uint8Array) => createHmac('sha256', secret).update(data).digest('hex');

/**
 * Upstash refuses a request over 10 MB (since 2025-09-18; it was 1 MB). A
 * body sealed and base64-encoded grows by a third, plus the record around
 * it: 4 MB x 4/3 + a few KB = 5.4 MB < 10 MB a claim; a takeover's reply,
 * base64 again (Upstash-Encoding), 7.1 MB, under the requester's 16 MB.
 * Past this size (beyond the default body limit of 1 MiB) the delivery is
 * claimed without a body: it runs here, and cannot be taken over (never failed open).
 */
export const MAX_STORED_BODY_BYTES = 4_000_000;

/**
 * What a taker-over needs to run the turn again: the delivery without
 * Slack's legacy verification `token`. Undefined when it is too large to store.
 */
function leaseRequest(leaseMs: number, body: Record<string, unknown>, eventId: string): LeaseRequest | undefined {
  const { token: _legacy, ...kept } = body;
  const stored = JSON.stringify(kept);
  if (Buffer.byteLength(stored) > MAX_STORED_BODY_BYTES) return undefined;
  const channel = (body.event as { channel?: unknown } | undefined)?.channel;
  return { leaseMs, body: stored, eventId, ...(typeof channel === 'string' ? { channel } : {}) };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export class FailoverReceiver implements Receiver {
  #server: Server | undefined;
  /** Requests whose client went away before its body ended: counted, logged at debug (no stack, nothing about the body). */
  #aborted = 0;
  readonly #runner: TurnRunner;
  readonly #o: FailoverReceiverOptions & { maxBodyBytes: number; ackDeadlineMs: number; drainMs: number; now: () => number };

  constructor(options: FailoverReceiverOptions) {
    this.#o = {
      ...options,
      maxBodyBytes: options.maxBodyBytes ?? 1_048_576,
      ackDeadlineMs: options.ackDeadlineMs ?? 1200,
      drainMs: options.drainMs ?? 10_000,
      now: options.now ?? Date.now,
    };
    const o = this.#o;
    this.#runner = new TurnRunner({
      store: o.store,
      keeper: o.keeper,
      role: o.role,
      instance: o.instance,
      log: o.log,
      ackDeadlineMs: o.ackDeadlineMs,
      lease: o.lease,
      retry: o.retry,
      maxTurns: o.maxTurns ?? 16,
      onRetry: o.onRetry,
      onDead: o.onDead,
      onIdle: o.onIdle,
      handleFor: o.handleFor,
      admit: o.admit,
      ended: o.ended,
      reclaim: (t) => this.#reclaim(t),
      confirmClaim: (key, nonce, leaseMs) => o.store.confirm(key, nonce, leaseMs),
      journal: o.journal,
      onWaitingOnStore: o.onWaitingOnStore,
      now: o.now,
    });
  }

  init(app: App): void {
    this.#runner.app = app;
  }

  /** The port the server listens on (useful with port 0). */
  get port(): number {
    return (this.#server?.address() as AddressInfo | null)?.port ?? 0;
  }

  /** The server's header and request timeouts. */
  get timeouts(): ServerTimeouts {
    return serverTimeouts(this.#o.maxBodyBytes, this.#o.timeouts);
  }

  /** Turns running now. */
  get inFlight(): number {
    return this.#runner.inFlight;
  }

  /** Turns acked and waiting for a free slot. */
  get queued(): number {
    return this.#runner.queued;
  }

  /** How many more turns this copy can take now. */
  get capacity(): number {
    return this.#runner.capacity;
  }

  /** Turns past their deadline whose work has not returned (a bot ignoring ctx.signal): shown in the health body. */
  get pastDeadline(): number {
    return this.#runner.pastDeadline;
  }

  /** Failed turns kept for the store, waiting for it to answer. */
  get waitingOnStore(): number {
    return this.#runner.waitingOnStore;
  }

  /** The store answered (a look went through): the turns kept for it are claimed and run now. Nothing to do while none is kept. */
  storeAnswered(): Promise<void> {
    return this.#runner.drainKept((envelope) => this.inject(envelope, { recovered: true }));
  }

  /** Guarded: a request whose handling fails gets 500 (or its connection closed), never the process (lib/http). */
  readonly requestListener = guardRequests(
    (req, res) => this.#route(req, res),
    (error) => this.#o.log.error('receiver.unexpected', { error }),
  );

  async start(port: number, host?: string): Promise<Server> {
    // Bounded, so a connection trickling a byte every few seconds is closed (408), not held for Node's 300 s.
    const server = createServer(serverOptions(this.timeouts), this.requestListener);
    server.keepAliveTimeout = 65_000;
    // While draining, a new connection is dropped at once (refused); open
    // keep-alive ones are answered 503 with `connection: close`.
    server.on('connection', (socket) => {
      if (this.#o.health.lifecycle === 'draining') socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.#server = server;
    this.#o.health.lifecycle = 'serving';
    return server;
  }

  /** Health turns 503 at once, new connections are refused, turns in flight get `drainMs` to finish. */
  async stop(): Promise<void> {
    this.#o.health.lifecycle = 'draining';
    const server = this.#server;
    await this.#runner.handBack();
    const drained = await withDeadline(
      this.#runner.drained().then(() => true),
      this.#o.drainMs,
      () => false,
    );
    if (!drained) {
      this.#o.log.warn('receiver.drain_timeout', { inFlight: this.#runner.inFlight, drainMs: this.#o.drainMs });
      this.#runner.expireAll('the copy is stopping past its drain');
      await this.#runner.abandonUnleased();
    }
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    }
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (this.#o.health.lifecycle === 'draining') res.setHeader('connection', 'close');
    if (path === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      const { status, body } = this.#o.health.report();
      // The status alone to anyone; who this copy is and how it is, only with the health token (issue 14).
      const shown = bearerMatches(header(req, 'authorization'), this.#o.healthToken) ? body : { status: body.status };
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(shown));
      return;
    }
    if (path !== EVENTS_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    await this.#delivery(req, res, new AckGate(res), this.#o.now());
  }

  async #delivery(req: IncomingMessage, res: ServerResponse, gate: AckGate, receivedAt: number): Promise<void> {
    const o = this.#o;
    let signed = false;
    const refuse = (status: number, reason: string) => {
      req.resume();
      // Who answered is said only to a caller who proved it is Slack.
      gate.answer(status, reason, signed ? { 'x-autohub-claim': 'none' } : {});
      o.log.info('delivery.refused', { status, reason });
    };
    if (o.health.lifecycle !== 'serving') return refuse(503, `this copy is ${o.health.lifecycle}`);

    const read = await readRawBody(req, o.maxBodyBytes);
    if (read.kind === 'aborted') {
      // A client that went away mid-body is not this copy's fault: one line at debug, with the count so far.
      this.#aborted += 1;
      o.log.debug('delivery.aborted', { count: this.#aborted });
      return;
    }
    if (read.kind === 'too-large') {
      // Answered whole, then the rest of the body drained: closing on unread bytes would reset the connection.
      answerThenLinger(req, res, 413, `request body is larger than ${read.limitBytes} bytes`);
      o.log.info('delivery.refused', { status: 413, reason: 'body too large' });
      return;
    }
    const raw = read.raw;
    // Slack's certificate check of a slash command URL comes unsigned (bolt-js and bolt-python answer it before
    // verifying): a form with ssl_check=1 and nothing that runs anything gets 200, and nothing about this copy.
    if (isSslCheck(header(req, 'content-type'), raw)) {
      gate.answer(200);
      o.log.debug('delivery.ssl_check', {});
      return;
    }
    const signature = await checkSignature({
      signingSecret: o.signingSecret,
      timestamp: header(req, 'x-slack-request-timestamp'),
      signature: header(req, 'x-slack-signature'),
      body: raw,
      now: o.now(),
      hmac: nodeHmac,
    });
    if (!signature.ok) return refuse(401, `signature ${signature.reason}`);
    signed = true;
    gate.identify({ 'x-autohub-instance': o.instance, 'x-autohub-role': o.role });

    let delivery: Delivery;
    try {
      delivery = parseDelivery(header(req, 'content-type'), raw.toString('utf8'));
    } catch (error) {
      if (error instanceof RequestInvalidError) return refuse(error.status, error.message);
      throw error;
    }
    if (delivery.kind === 'ssl_check') return void gate.answer(200, undefined, { 'x-autohub-claim': 'none' });
    if (delivery.kind === 'url_verification') {
      return void gate.answer(200, { challenge: delivery.challenge }, { 'x-autohub-claim': 'none' });
    }
    if (delivery.kind === 'app_rate_limited') {
      // Slack is dropping this app's events (over 30,000 an hour from one workspace); it wants a 200 all the same.
      gate.answer(200, undefined, { 'x-autohub-claim': 'none' });
      const { teamId, apiAppId, minuteRateLimited } = delivery;
      o.log.warn('slack.app_rate_limited', { teamId, apiAppId, minuteRateLimited });
      o.onAppRateLimited?.(delivery);
      return;
    }

    const waiting = this.#runner.queued;
    if (delivery.kind === 'event' && o.shedAt && waiting >= o.shedAt) {
      // Before the claim, so the copy that takes it claims it; Slack's own retry would reach the edge again.
      gate.answer(503, `busy: ${waiting} turns waiting here`, { 'x-autohub-claim': 'none', 'x-autohub-busy': String(waiting), 'retry-after': '1' });
      o.log.info('delivery.shed', { eventId: delivery.eventId, waiting });
      return;
    }
    if (delivery.kind === 'hint') {
      // Signed (checked above), never claimed: it costs no store command until the reaper looks.
      gate.answer(200, undefined, { 'x-autohub-claim': 'none' });
      o.log.debug('delivery.hint', { eventId: delivery.eventId });
      o.onHint?.();
      return;
    }
    const retry = parseRetryHeaders(header(req, 'x-slack-retry-num'), header(req, 'x-slack-retry-reason'));
    const failover = header(req, 'x-autohub-failover');
    // A busy hub is alive and renewing its leases: nothing to look for (a look then only finds leases late under load).
    if (failover && !failover.startsWith('hub busy')) o.onFailover?.(failover.slice(0, 80));
    const lease = delivery.kind === 'event' ? leaseRequest(o.lease.leaseMs, delivery.body, delivery.eventId) : undefined;
    const claimSentAt = o.now();
    const outcome = await this.#claim(delivery.claimKeys, receivedAt, lease);
    const claim: ClaimKind | 'none' = delivery.claimKeys.length === 0 ? 'none' : outcome.kind;
    if (outcome.kind === 'fail-open' && claim !== 'none') {
      o.health.countFailOpen();
      o.onFailOpen?.(outcome.reason);
    }
    const logFields = {
      kind: delivery.kind,
      eventId: delivery.kind === 'event' ? delivery.eventId : undefined,
      retryNum: retry.retryNum,
      claim,
      ...(outcome.kind === 'fail-open' ? { reason: outcome.reason } : {}),
    };
    if (outcome.kind === 'duplicate') {
      gate.answer(200, undefined, { 'x-autohub-claim': 'duplicate' });
      o.log.info('delivery.duplicate', { ...logFields, ackMs: o.now() - receivedAt });
      return;
    }
    if (delivery.kind === 'probe') {
      gate.answer(200, undefined, { 'x-autohub-claim': claim });
      o.log.info('delivery.probe', { ...logFields, eventId: delivery.eventId, ackMs: o.now() - receivedAt });
      return;
    }
    const turnLease = this.#leaseFor(delivery, outcome, claimSentAt);
    // The edge hints the other copy to look when this lease would lapse (lib/synthetic).
    if (turnLease) gate.identify({ [LEASE_HEADER]: String(o.lease.leaseMs) });
    const nonce = outcome.kind === 'fail-open' ? outcome.nonce : undefined;
    this.#runner.run({ delivery, gate, receivedAt, claim: claim === 'none' ? 'claimed' : outcome.kind, retry, logFields, lease: turnLease, nonce });
  }

  /** The lease an event's claim won (its lease runs from `sentAt`), the runner's to end; undefined for any other outcome. */
  #leaseFor(delivery: Delivery, outcome: ClaimOutcome, sentAt: number): TurnLease | undefined {
    if (delivery.kind !== 'event' || outcome.kind !== 'claimed' || outcome.token === undefined) return undefined;
    return this.#runner.lease(delivery.claimKeys[0]!, outcome.token, sentAt, delivery.body);
  }

  /** A failed-open turn that failed: claimed now, with a lease, for the retry machinery (see TurnRunnerOptions.reclaim). */
  async #reclaim(t: Turn): Promise<TurnLease | undefined> {
    const o = this.#o;
    if (t.delivery.kind !== 'event' || t.delivery.claimKeys.length === 0) return undefined;
    const request = leaseRequest(o.lease.leaseMs, t.delivery.body, t.delivery.eventId);
    if (!request) return undefined;
    const sentAt = o.now();
    // The turn was acked long ago: this claim is off the ack path (the longer fuse), so a store a little
    // slower than the claim's fuse still answers it.
    const outcome = await o.store.claim(t.delivery.claimKeys, { instance: o.instance, role: o.role }, request, { offAckPath: true });
    return this.#leaseFor(t.delivery, outcome, sentAt);
  }

  #claim(keys: string[], receivedAt: number, lease: LeaseRequest | undefined): Promise<ClaimOutcome> {
    if (keys.length === 0) return Promise.resolve({ kind: 'claimed' });
    const owner = { instance: this.#o.instance, role: this.#o.role };
    // The store bounds itself; this bound keeps the ack deadline even if it did not.
    const left = this.#o.ackDeadlineMs - 100 - (this.#o.now() - receivedAt);
    return withDeadline(this.#o.store.claim(keys, owner, lease), left, () => failOpen('receiver ack deadline'));
  }

  /**
   * A delivery Slack gave up on, found by the catch-up sweep: claimed like a
   * live one (under the same message key, so a late retry or a second
   * sweeper is a duplicate) and run with nobody waiting for an ack. Unlike a
   * live delivery it does not fail open: nobody waits for it, Slack keeps
   * the message, and a live delivery of it may be running unrecorded (its
   * own claim failed open), so it is left for the next sweep.
   */
  async inject(envelope: Record<string, unknown>, options: { recovered?: boolean } = {}): Promise<ClaimKind> {
    const o = this.#o;
    const delivery = parseDelivery('application/json', JSON.stringify(envelope));
    if (delivery.kind !== 'event') return 'duplicate';
    const receivedAt = o.now();
    const outcome = await this.#claim(delivery.claimKeys, receivedAt, leaseRequest(o.lease.leaseMs, delivery.body, delivery.eventId));
    if (outcome.kind === 'duplicate') return 'duplicate';
    if (outcome.kind === 'fail-open') {
      if (options.recovered) return 'fail-open';
      o.log.warn('catchup.unsure', {
        kind: 'event',
        eventId: delivery.eventId,
        reason: outcome.reason,
        detail: 'the store did not answer: left for the next sweep',
      });
      return 'fail-open';
    }
    const lease = this.#leaseFor(delivery, outcome, receivedAt);
    const logFields = { kind: 'event', eventId: delivery.eventId, claim: outcome.kind, ...(options.recovered ? { recovered: true } : { catchup: true }) };
    if (!options.recovered) o.log.info('catchup.found', logFields);
    this.#runner.run({
      delivery,
      gate: AckGate.detached(),
      receivedAt,
      claim: outcome.kind,
      retry: { retryNum: undefined, retryReason: undefined },
      logFields,
      lease,
    });
    return outcome.kind;
  }

  /** Keys of turns here whose claims failed open (no lease held): this copy's own look never takes them. */
  get unleased(): string[] {
    return this.#runner.unleased;
  }

  /** Run a turn taken from the lease set (see TurnRunner.resume). */
  resume(takeover: Takeover, sentAt: number): void {
    this.#runner.resume(takeover, sentAt);
  }
}
