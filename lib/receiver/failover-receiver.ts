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
 *   claim:    one call to the runner (built by the app, given to this receiver),
 *             bounded by its ack deadline, hands back the work; a duplicate answered;
 *   run:      a probe answered with its claim; a turn's work run on this request's
 *             gate (the edge's lease header, if the work gives one, set first).
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
import type { ClaimKind } from '../store/index.js';
import type { Role } from '../store/index.js';
import { RequestInvalidError } from '../errors/index.js';
import { guardRequests, serverOptions, serverTimeouts, type ServerTimeouts } from '../http/index.js';
import type { Logger } from '../log/index.js';
import { checkSignature, EVENTS_PATH, HEALTH_PATH, isSslCheck, parseRetryHeaders } from '../slack/index.js';
import { parseDelivery, workIdOf, type AppRateLimited, type Delivery } from '../delivery/index.js';
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
import { AckGate, type Claimable, type ProbeWork, type TurnRunner, type TurnWork } from '../runner/index.js';
import { INBOX_HEADER, LEASE_HEADER } from '../synthetic/index.js';

export { EVENTS_PATH, HEALTH_PATH };

export interface FailoverReceiverOptions {
  signingSecret: string;
  /**
   * Claims each delivery and hands back its work (`claim`): built by the app
   * (app/parts.ts buildRunner), given Bolt's app by `init`. The receiver
   * answers HTTP; claims, leases and turns are the runner's.
   */
  runner: TurnRunner;
  health: HealthMonitor;
  role: Role;
  instance: string;
  log: Logger;
  /** @default 1 MiB */
  maxBodyBytes?: number;
  /** How long `stop()` waits for turns in flight. @default 10000 */
  drainMs?: number;
  /** The bearer token that unlocks the full health body; without it only `{status}` is shown. */
  healthToken?: string | null;
  /**
   * While this many turns wait here, new event deliveries are answered 503
   * with `x-autohub-busy` before any claim, and the edge gives them to the
   * cloud copy: the backlog is drained by whichever copy has room. 0: never. @default 0
   */
  shedAt?: number;
  /** The edge sent this delivery here because the hub failed (`x-autohub-failover`). */
  failover?: (reason: string) => void;
  /** Slack said it is dropping this app's events (`app_rate_limited`); answered 200 first. */
  appRateLimited?: (notice: AppRateLimited) => void;
  /** A live delivery's claim failed open (the store did not answer): its turn runs unfenced. */
  failOpen?: (reason: string) => void;
  /** From a request's first byte to its last header, then to its last body byte. @default 5 s, then the body limit at 64 KiB/s */
  timeouts?: Partial<ServerTimeouts>;
  /** The edge's signed hint: a turn's lease is live at the other copy (look when it would lapse). */
  hint?: () => void;
  /** The edge kept deliveries in its inbox since it last told a copy (INBOX_HEADER on a signed delivery): drain them now. */
  inboxKept?: () => void;
  /** @default Date.now */
  now?: () => number;
}

/** node:crypto's HMAC: synchronous, no thread-pool hop per request. */
const nodeHmac = (secret: string, data: Uint8Array) => createHmac('sha256', secret).update(data).digest('hex');

/** One request on its way through the stages: plain data, handed from each stage to the next. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  gate: AckGate;
  receivedAt: number;
}

/** What stage 3 hands to stage 4: the work the runner's claim gave back, as the logs see it. */
interface Claimed {
  work: ProbeWork | TurnWork;
  /** `none`: the delivery has no key to claim under (runs as claimed). */
  claim: ClaimKind | 'none';
  logFields: Record<string, unknown>;
}

export class FailoverReceiver implements Receiver {
  #server: Server | undefined;
  /** Requests whose client went away before its body ended: counted, logged at debug (no stack, nothing about the body). */
  #aborted = 0;
  readonly #runner: TurnRunner;
  readonly #o: FailoverReceiverOptions & { maxBodyBytes: number; drainMs: number; now: () => number };

  constructor(options: FailoverReceiverOptions) {
    this.#o = {
      ...options,
      maxBodyBytes: options.maxBodyBytes ?? 1_048_576,
      drainMs: options.drainMs ?? 10_000,
      now: options.now ?? Date.now,
    };
    this.#runner = options.runner;
  }

  /** Bolt calls this as the app is built: the app is handed to the runner, which runs every turn through it. */
  init(app: App): void {
    this.#runner.attach(app);
  }

  /** The port the server listens on (useful with port 0). */
  get port(): number {
    return (this.#server?.address() as AddressInfo | null)?.port ?? 0;
  }

  /** The server's header and request timeouts. */
  get timeouts(): ServerTimeouts {
    return serverTimeouts(this.#o.maxBodyBytes, this.#o.timeouts);
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
    this.#o.health.serving();
    return server;
  }

  /** Health turns 503 at once, new connections are refused, turns in flight get `drainMs` to finish. */
  async stop(): Promise<void> {
    this.#o.health.draining();
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
        return void answerAppRateLimited(gate, o.log, delivery, o.appRateLimited);
      case 'hint':
        return void answerHint(gate, o.log, delivery.eventId, o.hint);
      case 'event': {
        const waiting = this.#runner.queued;
        if (o.shedAt && waiting >= o.shedAt) return void answerShed(gate, o.log, delivery.eventId, waiting);
        return delivery;
      }
      default:
        return delivery;
    }
  }

  /** Stage 3: the runner's claim hands back the work (a duplicate is answered here); a fail-open is counted and told. */
  async #claim(x: Exchange, delivery: Claimable): Promise<Claimed | undefined> {
    const { req, gate, receivedAt } = x;
    const o = this.#o;
    const retry = parseRetryHeaders(header(req, 'x-slack-retry-num'), header(req, 'x-slack-retry-reason'));
    const failover = header(req, 'x-autohub-failover');
    // Signed by Slack, forwarded by the edge: a forged header could only make this copy look at the inbox early.
    if (header(req, INBOX_HEADER)) o.inboxKept?.();
    // A busy hub is alive and renewing its leases: nothing to look for (a look then only finds leases late under load).
    if (failover && !failover.startsWith('hub busy')) o.failover?.(failover.slice(0, 80));
    const work = await this.#runner.claim(delivery, { receivedAt, retry });
    if (work.failOpen !== undefined) {
      o.health.countFailOpen();
      o.failOpen?.(work.failOpen);
    }
    const claim: ClaimKind | 'none' = delivery.claimKeys.length === 0 ? 'none' : work.claim;
    const logFields = {
      kind: delivery.kind,
      // An event's id, a form's trigger_id (the id its dead letter and its late answer are known by).
      eventId: delivery.kind === 'probe' ? delivery.eventId : workIdOf(delivery),
      retryNum: retry.retryNum,
      claim,
      ...(work.failOpen !== undefined ? { reason: work.failOpen } : {}),
    };
    if (work.kind === 'duplicate') return void answerDuplicate(gate, o.log, logFields, o.now() - receivedAt);
    return { work, claim, logFields };
  }

  /** Stage 4: a probe is answered with its claim; a turn's work runs, its ack given to this request's gate. */
  #run(x: Exchange, { work, claim, logFields }: Claimed): void {
    const { gate, receivedAt } = x;
    const o = this.#o;
    if (work.kind === 'probe') {
      answerProbe(gate, o.log, claim, logFields, work.eventId, o.now() - receivedAt);
      return;
    }
    // The edge's to read (it hints the other copy); set before the turn's ack.
    if (work.leaseHeader !== undefined) gate.identify({ [LEASE_HEADER]: work.leaseHeader });
    work.run({ gate, logFields });
  }
}
