/**
 * A Bolt Receiver that claims every delivery in the shared store before the
 * turn runs, so a delivery that reaches both copies, or one copy twice, runs
 * once. A duplicate never reaches Bolt (not authorize, not a listener).
 *
 * `POST /slack/events` in four stages, each answering or handing a plain
 * value to the next (the answers given without a turn are in answers.ts):
 *   verify:   serving (503), size limit (413), the unsigned ssl_check (200),
 *             signature, both directions of the 5-minute window (401);
 *   classify: parse (400/415); ssl_check, url_verification,
 *             app_rate_limited, the edge's hint and a shed (503) answered;
 *   claim:    a duplicate answered;
 *   run:      a probe answered with its claim; anything else, its turn.
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
import { guardRequests, serverOptions, serverTimeouts, type ServerTimeouts } from '../http/index.js';
import type { Logger } from '../log/index.js';
import { checkSignature, EVENTS_PATH, HEALTH_PATH, isSslCheck, parseRetryHeaders, type RetryInfo } from '../slack/index.js';
import { leaseRequest, parseDelivery, type AppRateLimited, type Delivery } from '../delivery/index.js';
import {
  answerAppRateLimited,
  answerDuplicate,
  answerHealth,
  answerHint,
  answerMethodNotAllowed,
  answerNotFound,
  answerProbe,
  answerShed,
  answerSslCheck,
  answerTooLarge,
  answerUnsignedSslCheck,
  answerUrlVerification,
  header,
  refuse,
} from './answers.js';
import { withDeadline } from '../time/index.js';
import type { HealthMonitor } from '../liveness/index.js';
import { readRawBody } from './raw-body.js';
import { AckGate, TurnRunner, type Turn, type TurnRunnerOptions } from '../runner/index.js';
import type { DeadTurn, LeaseKeeper, TurnLease } from '../lease/index.js';
import { LEASE_HEADER } from '../synthetic/index.js';

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

/** What the ack deadline keeps for the answer itself once the claim is back (or given up): 1,200 - 100 ms for the claim. */
const ANSWER_MARGIN_MS = 100;

/** One request on its way through the stages: plain data, handed from each stage to the next. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  gate: AckGate;
  receivedAt: number;
}

/** The deliveries that reach the claim: every other kind is answered by stage 2. */
type Claimable = Extract<Delivery, { kind: 'event' | 'command' | 'interactive' | 'probe' }>;

/** What stage 3 hands to stage 4: the claim's outcome, as the turn and the logs see it. */
interface Claimed {
  delivery: Claimable;
  outcome: ClaimOutcome;
  /** `none`: the delivery has no key to claim under (runs as claimed). */
  claim: ClaimKind | 'none';
  /** When the claim was sent: its lease runs from then. */
  sentAt: number;
  retry: RetryInfo;
  logFields: Record<string, unknown>;
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
    if (path === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) return answerHealth(req, res, this.#o.health, this.#o.healthToken);
    if (path !== EVENTS_PATH) return answerNotFound(res);
    if (req.method !== 'POST') return answerMethodNotAllowed(res);
    await this.#delivery({ req, res, gate: new AckGate(res), receivedAt: this.#o.now() });
  }

  /** `POST /slack/events`, in four stages; each one either answers or hands its result on to the next. */
  async #delivery(x: Exchange): Promise<void> {
    const raw = await this.#verify(x);
    if (!raw) return;
    const delivery = this.#classify(x, raw);
    if (!delivery) return;
    const claimed = await this.#claim(x, delivery);
    if (!claimed) return;
    this.#run(x, claimed);
  }

  /** Stage 1: this copy is serving, the body fits, and Slack signed it (the unsigned certificate check is answered here). */
  async #verify(x: Exchange): Promise<Buffer | undefined> {
    const { req, res, gate } = x;
    const o = this.#o;
    if (o.health.lifecycle !== 'serving') return void refuse(req, gate, o.log, 503, `this copy is ${o.health.lifecycle}`, false);
    const read = await readRawBody(req, o.maxBodyBytes);
    if (read.kind === 'aborted') {
      // A client that went away mid-body is not this copy's fault: one line at debug, with the count so far.
      this.#aborted += 1;
      o.log.debug('delivery.aborted', { count: this.#aborted });
      return undefined;
    }
    if (read.kind === 'too-large') return void answerTooLarge(req, res, o.log, read.limitBytes);
    if (isSslCheck(header(req, 'content-type'), read.raw)) return void answerUnsignedSslCheck(gate, o.log);
    const signature = await checkSignature({
      signingSecret: o.signingSecret,
      timestamp: header(req, 'x-slack-request-timestamp'),
      signature: header(req, 'x-slack-signature'),
      body: read.raw,
      now: o.now(),
      hmac: nodeHmac,
    });
    if (!signature.ok) return void refuse(req, gate, o.log, 401, `signature ${signature.reason}`, false);
    gate.identify({ 'x-autohub-instance': o.instance, 'x-autohub-role': o.role });
    return read.raw;
  }

  /** Stage 2: what the signed body is; every kind that is never claimed is answered here. */
  #classify(x: Exchange, raw: Buffer): Claimable | undefined {
    const { req, gate } = x;
    const o = this.#o;
    let delivery: Delivery;
    try {
      delivery = parseDelivery(header(req, 'content-type'), raw.toString('utf8'));
    } catch (error) {
      if (error instanceof RequestInvalidError) return void refuse(req, gate, o.log, error.status, error.message, true);
      throw error;
    }
    switch (delivery.kind) {
      case 'ssl_check':
        return void answerSslCheck(gate);
      case 'url_verification':
        return void answerUrlVerification(gate, delivery.challenge);
      case 'app_rate_limited':
        return void answerAppRateLimited(gate, o.log, delivery, o.onAppRateLimited);
      case 'hint':
        return void answerHint(gate, o.log, delivery.eventId, o.onHint);
      case 'event': {
        const waiting = this.#runner.queued;
        if (o.shedAt && waiting >= o.shedAt) return void answerShed(gate, o.log, delivery.eventId, waiting);
        return delivery;
      }
      default:
        return delivery;
    }
  }

  /** Stage 3: the claim (a duplicate is answered here); a fail-open is counted and told. */
  async #claim(x: Exchange, delivery: Claimable): Promise<Claimed | undefined> {
    const { req, gate, receivedAt } = x;
    const o = this.#o;
    const retry = parseRetryHeaders(header(req, 'x-slack-retry-num'), header(req, 'x-slack-retry-reason'));
    const failover = header(req, 'x-autohub-failover');
    // A busy hub is alive and renewing its leases: nothing to look for (a look then only finds leases late under load).
    if (failover && !failover.startsWith('hub busy')) o.onFailover?.(failover.slice(0, 80));
    const lease = delivery.kind === 'event' ? leaseRequest(o.lease.leaseMs, delivery.body, delivery.eventId) : undefined;
    const sentAt = o.now();
    const outcome = await this.#claimWithinAck(delivery.claimKeys, receivedAt, lease);
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
    if (outcome.kind === 'duplicate') return void answerDuplicate(gate, o.log, logFields, o.now() - receivedAt);
    return { delivery, outcome, claim, sentAt, retry, logFields };
  }

  /** Stage 4: a probe is answered with its claim; any other delivery's turn runs, with the lease its claim won. */
  #run(x: Exchange, c: Claimed): void {
    const { gate, receivedAt } = x;
    const o = this.#o;
    const { delivery, outcome, claim } = c;
    if (delivery.kind === 'probe') {
      answerProbe(gate, o.log, claim, c.logFields, delivery.eventId, o.now() - receivedAt);
      return;
    }
    const lease = this.#leaseFor(delivery, outcome, c.sentAt);
    // The edge hints the other copy to look when this lease would lapse (lib/synthetic).
    if (lease) gate.identify({ [LEASE_HEADER]: String(o.lease.leaseMs) });
    const nonce = outcome.kind === 'fail-open' ? outcome.nonce : undefined;
    this.#runner.run({ delivery, gate, receivedAt, claim: claim === 'none' ? 'claimed' : outcome.kind, retry: c.retry, logFields: c.logFields, lease, nonce });
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

  /** The store's claim, failed open if it has not answered `ANSWER_MARGIN_MS` before the ack deadline. */
  #claimWithinAck(keys: string[], receivedAt: number, lease: LeaseRequest | undefined): Promise<ClaimOutcome> {
    if (keys.length === 0) return Promise.resolve({ kind: 'claimed' });
    const owner = { instance: this.#o.instance, role: this.#o.role };
    // The store bounds itself; this bound keeps the ack deadline even if it did not.
    const left = this.#o.ackDeadlineMs - ANSWER_MARGIN_MS - (this.#o.now() - receivedAt);
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
    const outcome = await this.#claimWithinAck(delivery.claimKeys, receivedAt, leaseRequest(o.lease.leaseMs, delivery.body, delivery.eventId));
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
