/**
 * The Bolt app, hub or cloud copy: the same code, told apart by its config.
 */
import { readFileSync } from 'node:fs';
import { App } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { AppConfig } from '../lib/config/index.js';
import { slackLogger, type Logger } from '../lib/log/index.js';
import { createRateLimitFetch, refusalSink } from '../lib/ratelimit/index.js';
import { FailoverReceiver, HealthMonitor, LeaseKeeper, PeerWatch, Reaper, TurnJournal, type DeadTurn, type TurnContext } from '../lib/receiver/index.js';
import { CatchupSweeper } from '../lib/catchup/index.js';
import { allowanceReached, appRateLimitedDetail, isAuthFailure, missedWhileServing, OwnerNotices } from '../lib/notice/index.js';
import type { LegChecker } from '../lib/legs/index.js';
import { statusRecorder, STATUS_KEYS, type CopyRecord, type StatusRecorder } from '../lib/status/index.js';
import { createSealer, createStore, type SharedStore } from '../lib/store/index.js';
import { LoopDelay, type Sleep } from '../lib/time/index.js';
import { resilientAuthorize } from './authorize.js';
import { announceDeadLetter, announceNotice } from './listeners/announce.js';
import { createLegChecker } from './legs.js';
import { registerCommand } from './listeners/command.js';
import { registerConversation } from './listeners/conversation.js';
import { registerHome } from './listeners/home.js';
import { demoTurn } from './turn.js';
import { TurnHandle, type TakeTurn, type TurnModule } from '../lib/turn/index.js';

/** The package's version, found from here whether this runs from app/ (tsx) or dist/node/app/ (built). */
function packageVersion(): string {
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    try {
      return (JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { version: string }).version;
    } catch {
      if (dir.pathname === '/') return '0.0.0';
    }
  }
}

export const VERSION: string = packageVersion();

export interface AutohubOptions {
  config: AppConfig;
  log: Logger;
  /** @default createStore(config): Upstash when configured, else in-process */
  store?: SharedStore | undefined;
  /** The network `fetch` under the rate-limit layer. @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
  /** @default Date.now */
  now?: (() => number) | undefined;
  /** How the rate-limit layer waits out a window. @default setTimeout-based */
  sleep?: Sleep | undefined;
  /** Your bot: a module as AUTOHUB_TURN names it (app/turn-module.ts loads it), or its takeTurn alone. @default the demo turn (app/turn.ts) */
  turn?: TurnModule | TakeTurn | undefined;
}

/**
 * The turns a stopping copy journaled: claimed now like any delivery (one
 * answered meanwhile is a duplicate), run with nobody waiting for an ack; one
 * the store still cannot take goes back into the journal.
 */
async function drainJournal(journal: TurnJournal, receiver: FailoverReceiver, log: Logger): Promise<void> {
  let taken: ReturnType<TurnJournal['take']>;
  try {
    taken = journal.take();
  } catch (error) {
    log.error('journal.unreadable', { path: journal.path, error });
    return;
  }
  if (taken.unreadable > 0) log.error('journal.entries_unreadable', { path: journal.path, count: taken.unreadable, detail: 'sealed under another store key' });
  for (const envelope of taken.envelopes) {
    const claim = await receiver.inject(envelope, { recovered: true });
    if (claim === 'fail-open') journal.keep(envelope);
    log.info('journal.drained', { eventId: envelope.event_id, claim });
  }
}

/** What `register(app, helpers)` gets besides the Bolt app. */
export interface RegisterHelpers {
  log: Logger;
  /** The copy's rate-limit-aware WebClient (not fenced: for writes outside a turn). */
  client: WebClient;
  /** The turn handle of the delivery a listener is answering (its `client` is fenced by the turn's lease). */
  turnOf(context: unknown): TurnHandle | undefined;
  /** Answer a message event like an @mention: the whole reply protocol, with `takeTurn` (default: the bot's). */
  answer(args: { event: unknown; body: unknown; context: unknown }, takeTurn?: TakeTurn): Promise<void>;
}

export interface Autohub {
  app: App;
  receiver: FailoverReceiver;
  health: HealthMonitor;
  store: SharedStore;
  /** Keeps this copy's leases alive, in one request per renewal. */
  keeper: LeaseKeeper;
  /** Takes over turns whose owner's lease lapsed, and retries that fall due; runs on every copy. */
  reaper: Reaper;
  /** Rate-limit refusals for the status page, gathered and written about once a second. */
  status: StatusRecorder;
  /** A WebClient with the bot token, through the rate-limit layer. */
  client: WebClient;
  /** Faults only the owner can fix, told once per cause per hour (lib/notice). */
  notices: OwnerNotices;
  /** Proves edge -> hub and edge -> cloud every AUTOHUB_VERIFY_EVERY_MS (one copy a period); undefined without AUTOHUB_EDGE_URL. */
  legs: LegChecker | undefined;
  /** Probe the store once, then listen; health turns 200. */
  start(): Promise<void>;
  /** Drain and close (health 503 at once). */
  stop(): Promise<void>;
}

/** The edge's failover reasons are written to the status page at most this often. */
const FAILOVER_NOTE_MS = 10_000;

export function createAutohub(options: AutohubOptions): Autohub {
  const { config, log } = options;
  /** Since when this copy serves (a sweep finding mentions from after it means they were never delivered here). */
  let servingSince = Infinity;
  const noStream = new Set<string>();
  const bot: TurnModule =
    typeof options.turn === 'function'
      ? { takeTurn: options.turn }
      : (options.turn ?? { takeTurn: demoTurn({ thinkMs: config.demoThinkMs, chunkMs: config.demoChunkMs, replyChars: config.demoReplyChars }) as TakeTurn });
  const turn = bot.takeTurn;
  const store = options.store ?? createStore(config, log);
  const now = options.now ?? Date.now;
  const owner = { instance: config.instance, role: config.role };
  const status = statusRecorder(store);
  const loop = new LoopDelay();
  const keeper = new LeaseKeeper(store, config.lease, log, now);
  // Assigned below; the receiver's callbacks run only after start().
  let reaper: Reaper;
  let lastFailoverNote = -Infinity;
  // With no AUTOHUB_OWNER, a notice is still logged and on the status page; nobody gets a DM.
  const notices = new OwnerNotices({
    store,
    instance: config.instance,
    log,
    now: options.now,
    tell: (text, cause) => announceNotice(client, config.owners, text, cause, log),
  });

  const rateLimit = createRateLimitFetch({
    fetch: options.fetch,
    now: options.now,
    sleep: options.sleep,
    maxAttempts: config.rateLimit.attempts,
    budgetMs: config.rateLimit.budgetMs,
    shared: store.windows,
    onRefusal: ((sink) => (record) => {
      sink(record);
      status.refusal(record);
    })(refusalSink({ path: config.refusalLog, log })),
    instance: config.instance,
    onAnswer: (answer) => {
      if (isAuthFailure(answer.error)) notices.raise('web_api_auth', `${answer.method}: ${answer.error}`);
    },
  });
  const clientOptions: WebClientOptions = {
    slackApiUrl: config.slackApiUrl,
    // Retries are the rate-limit layer's job, so no wait is doubled and a
    // post whose response was lost is not sent a second time.
    retryConfig: { retries: 0 },
    logger: slackLogger(log),
    fetch: rateLimit,
  };
  const client = new WebClient(config.botToken, clientOptions);
  // A dead letter, whether a failed run made it (the receiver) or a look did (owners that kept dying, the reaper): told once.
  const onDead = (dead: DeadTurn): void => {
    log.error('turn.dead_letter', { ...dead });
    if (config.owners.length > 0) void announceDeadLetter(client, config.owners, dead, log);
  };
  const health = new HealthMonitor({
    store,
    role: config.role,
    instance: config.instance,
    version: VERSION,
    now: options.now,
    turns: () => ({ running: receiver.inFlight, waiting: receiver.queued, leases: keeper.size }),
    loop: () => loop.take(),
  });
  // Acked turns that a stop could hand to nobody (the store refusing): kept here, drained at the next start.
  const journal = config.journal
    ? new TurnJournal({ path: config.journal, sealer: config.sealKeys ? createSealer(config.sealKeys.current, config.sealKeys.previous) : undefined })
    : undefined;
  const receiver = new FailoverReceiver({
    journal,
    signingSecret: config.signingSecret,
    healthToken: config.healthToken,
    store,
    keeper,
    health,
    role: config.role,
    instance: config.instance,
    log,
    maxBodyBytes: config.maxBodyBytes,
    drainMs: config.drainMs,
    lease: config.lease,
    retry: config.retry,
    maxTurns: config.maxTurns,
    shedAt: config.shedAt,
    now: options.now,
    onRetry: (ms) => reaper.wakeIn(ms),
    onIdle: () => reaper.poke(),
    onAppRateLimited: (n) => notices.raise('app_rate_limited', appRateLimitedDetail(n)),
    onFailOpen: (reason) => notices.raise('claims_fail_open', reason),
    // Every turn answers through a handle whose client is fenced by the turn's lease at each write (issue 23).
    handleFor: (lease, key) =>
      new TurnHandle({
        lease,
        key,
        steps: store,
        clientFor: (guard) => new WebClient(config.botToken, { ...clientOptions, fetch: rateLimit.fenced(guard) }),
        plain: client,
        closed: rateLimit.closed,
        copy: owner,
        log,
        botToken: config.botToken,
        noStream,
        now: options.now,
      }),
    onDead,
    // The edge: the other copy acked a turn under a lease; look when it would lapse (wakeIn only moves earlier).
    onHint: () => reaper.wakeIn(config.lease.leaseMs + 250),
    // The hub failed at the edge: its leases lapse within a lease, so look then.
    onFailover: (reason) => {
      reaper.wakeIn(config.lease.leaseMs + 250);
      if (now() - lastFailoverNote < FAILOVER_NOTE_MS) return;
      lastFailoverNote = now();
      void store.note(STATUS_KEYS.lastFailover, JSON.stringify({ at: new Date(now()).toISOString(), reason }), 7 * 24 * 3600);
    },
  });
  const heartbeat = (): string => {
    const loopDelay = health.sampleLoop();
    // A late loop makes this copy slow through no fault of the store or the peer: say so.
    if (loopDelay.p99Ms > 200) log.warn('loop.delayed', { p99Ms: loopDelay.p99Ms, maxMs: loopDelay.maxMs });
    const { body } = health.report();
    const record: CopyRecord = {
      at: new Date(now()).toISOString(),
      instance: config.instance,
      role: config.role,
      status: body.status,
      storeOk: body.store.ok,
      loopP99Ms: loopDelay.p99Ms,
      running: receiver.inFlight,
      waiting: receiver.queued,
    };
    return JSON.stringify(record);
  };
  // After an outage longer than Slack's retries, read back what Slack gave up on (AUTOHUB_CATCHUP).
  const sweeper = config.catchup
    ? new CatchupSweeper({
        client,
        store,
        inject: (envelope) => receiver.inject(envelope),
        instance: config.instance,
        log,
        maxMs: config.catchup.maxMs,
        retryWindowMs: config.catchup.retryWindowMs,
        paceMs: config.catchup.paceMs,
        everyMs: config.catchup.everyMs,
        now: options.now,
      })
    : undefined;
  reaper = new Reaper({
    store,
    owner,
    settings: config.lease,
    retry: config.retry,
    onDead,
    // A claim that timed out may have landed: the look keeps its lease alive until the runner confirms it.
    running: () => receiver.unleased,
    resume: (takeover, sentAt) => receiver.resume(takeover, sentAt),
    capacity: () => receiver.capacity,
    heartbeat,
    // Every look says how long ago any copy last claimed a delivery: the sweep decides from that.
    onLook: (look) => {
      // The plan's monthly commands, as the looks add them up (Upstash only): the owner hears at 80%.
      if (look.monthCommands !== undefined && allowanceReached(look.monthCommands, config.storeAllowance)) {
        notices.raise('store_allowance', `${look.monthCommands} of ${config.storeAllowance} commands this month`);
      }
      void sweeper?.maybeSweep(look).then((sweep) => {
        if (sweep && missedWhileServing(sweep, servingSince))
          notices.raise('slack_not_delivering', `${sweep.answered} mention(s) from ${sweep.from} to ${sweep.to}`);
      });
    },
    log,
    now: options.now,
  });
  const peer = config.peer
    ? new PeerWatch({
        url: config.peer.url,
        token: config.healthToken ?? undefined,
        everyMs: config.peer.everyMs,
        log,
        onPeerLost: (reason) => {
          log.warn('peer.lost', { reason, lookInMs: config.lease.leaseMs + 250 });
          reaper.wakeIn(config.lease.leaseMs + 250);
        },
      })
    : undefined;

  const legs = createLegChecker(config, { store, client, log, now: options.now });

  const app = new App({
    receiver,
    authorize: resilientAuthorize(new WebClient(undefined, clientOptions), config.botToken),
    clientOptions,
    logger: slackLogger(log),
  });
  // Rethrown, so the turn runner sees every failure: it retries or dead-letters the turn (issue 11).
  app.error(async (error) => {
    log.debug('bolt.error', { code: error.code });
    throw error;
  });
  registerConversation(app, log, { turn });
  // Your module's own listeners: every delivery they see was claimed first, and events hold a lease.
  const helpers: RegisterHelpers = {
    log,
    client,
    turnOf: (context) => (context as Partial<TurnContext>).autohubTurn,
    answer: async (args, takeTurn = turn) => {
      const handle = (args.context as Partial<TurnContext>).autohubTurn;
      if (!handle) throw new Error('answer() needs the context of a delivery autohub received');
      await handle.answer(args as Parameters<TurnHandle['answer']>[0], takeTurn);
    },
  };
  const registered = bot.register?.(app, helpers);
  registerCommand(app, health, store, config.owners);
  registerHome(app, health, store, log, config.owners);

  return {
    app,
    receiver,
    health,
    store,
    keeper,
    reaper,
    status,
    client,
    notices,
    legs,
    start: async () => {
      await registered;
      servingSince = now();
      loop.start();
      await health.refresh();
      await receiver.start(config.port);
      keeper.start();
      reaper.start();
      if (journal) void drainJournal(journal, receiver, log);
      peer?.start();
      legs?.start();
      log.info('app.started', { port: receiver.port, store: store.kind, storeOk: health.store.ok, version: VERSION, peer: Boolean(peer) });
    },
    stop: async () => {
      peer?.stop();
      await legs?.stop();
      reaper.stop();
      // A sweep cut short lets its lock go: otherwise no copy could sweep until it lapsed.
      await Promise.all([receiver.stop(), sweeper?.stop()]);
      keeper.stop();
      loop.stop();
      await status.flush();
    },
  };
}
