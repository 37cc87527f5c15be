/**
 * The parts of a copy, one builder each, given only what the part needs. A
 * part that calls another does so through `wakes` (app/wiring.ts says who
 * answers each call); app/create-app.ts lists the parts and wires them.
 */
import type { conversationAdmit } from '../lib/conversation/index.js';
import type { TaskDisplayMode } from '../lib/bot/index.js';
import { App } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { AppConfig } from '../lib/config/index.js';
import { slackLogger, type Logger } from '../lib/log/index.js';
import { createRateLimitFetch, createSlackTransport, guardedClients, type RateLimitFetch } from '../lib/ratelimit/index.js';
import { FailoverReceiver } from '../lib/receiver/index.js';
import { HealthMonitor, PeerWatch, type HealthMonitorOptions } from '../lib/liveness/index.js';
import { type LeaseKeeper, Reaper, type DeadTurn } from '../lib/lease/index.js';
import { type LateAnswers, TurnJournal, TurnRunner } from '../lib/runner/index.js';
import { CatchupSweeper } from '../lib/catchup/index.js';
import { OwnerNotices, type NoticeCause } from '../lib/notice/index.js';
import { STATUS_KEYS, type CopyRecord, type PeerView } from '../lib/status/index.js';
import { createSealer, storeKeyId, type SharedStore } from '../lib/store/index.js';
import type { LoopDelay, Sleep } from '../lib/time/index.js';
import { AssistantThreads, BotLoops, FollowUpThreads, StatusBook, TurnHandle, type TurnHandleOptions, type StatusTimers } from '../lib/turn/index.js';
import type { TakeTurn, TurnModule } from '../lib/bot/index.js';
import { resilientAuthorize } from './authorize.js';
import { announceDeadLetter, announceNotice, type OwnerLine } from './listeners/announce.js';
import type { DeliveryTracer } from '../lib/telemetry/index.js';
import { registerCommand } from './listeners/command.js';
import { registerConversation } from './listeners/conversation.js';
import { registerSchedules } from './listeners/schedule.js';
import { registerHome } from './listeners/home.js';
import { registerAssistant } from './listeners/assistant.js';
import { demoTurn } from './turn.js';
import type { RegisterHelpers } from '../lib/bot/index.js';
import { turnOf, type AutohubContext } from './turn-context.js';
import type { Wakes } from './wiring.js';

type Now = (() => number) | undefined;

/** What most parts are given: the shared store, the log, and the clock (undefined: Date.now). */
export interface Common {
  store: SharedStore;
  log: Logger;
  now: Now;
}

/** The bot: a module as AUTOHUB_TURN names it, or its takeTurn alone; the demo turn without either. */
export function botOf(
  turn: TurnModule | TakeTurn | undefined,
  config: Pick<AppConfig, 'demoThinkMs' | 'demoChunkMs' | 'demoReplyChars' | 'demoTicketUrl'>,
): TurnModule {
  if (typeof turn === 'function') return { takeTurn: turn };
  const demo = { thinkMs: config.demoThinkMs, chunkMs: config.demoChunkMs, replyChars: config.demoReplyChars, ticketUrl: config.demoTicketUrl };
  return turn ?? { takeTurn: demoTurn(demo) as TakeTurn };
}

export interface SlackClient {
  /** The rate-limit layer every Web API call goes through. */
  rateLimit: RateLimitFetch;
  /** What every WebClient of this copy is made with. */
  clientOptions: WebClientOptions;
  /** A WebClient with the bot token (not fenced: for writes outside a turn). */
  client: WebClient;
}

export function buildSlackClient(o: {
  config: Pick<AppConfig, 'slackApiUrl' | 'botToken' | 'rateLimit' | 'instance'>;
  log: Logger;
  store: Pick<SharedStore, 'windows'>;
  fetch: typeof fetch | undefined;
  now: Now;
  sleep: Sleep | undefined;
  wakes: Pick<Wakes, 'refused' | 'answered'>;
  /** Each Web API call within a traced run becomes its span (lib/telemetry); undefined without OTEL_*. */
  tracer?: DeliveryTracer | undefined;
}): SlackClient {
  const rateLimit = createRateLimitFetch({
    // The WebClient's calls over the kept-alive wire, not undici's fetch (lib/ratelimit/slack-transport.ts).
    fetch: o.fetch ?? createSlackTransport(),
    now: o.now,
    sleep: o.sleep,
    maxAttempts: o.config.rateLimit.attempts,
    budgetMs: o.config.rateLimit.budgetMs,
    shared: o.store.windows,
    onRefusal: o.wakes.refused,
    instance: o.config.instance,
    onAnswer: o.wakes.answered,
  });
  const clientOptions: WebClientOptions = {
    slackApiUrl: o.config.slackApiUrl,
    // Retries are the rate-limit layer's job, so no wait is doubled and a
    // post whose response was lost is not sent a second time.
    retryConfig: { retries: 0 },
    logger: slackLogger(o.log),
    // Traced around the rate-limit layer: a write's span holds its waits and retries.
    fetch: o.tracer ? o.tracer.wrapFetch(rateLimit) : rateLimit,
  };
  return { rateLimit, clientOptions, client: new WebClient(o.config.botToken, clientOptions) };
}

/** What the owners hear (by DM, and at the alert URL): the notices, and each dead letter (logged, told once, whether a failed run or a look made it). */
export function ownerDMs(line: OwnerLine, log: Logger) {
  return {
    notice: (text: string, cause: NoticeCause) => announceNotice(line, text, cause),
    deadLetter: (dead: DeadTurn): void => {
      log.error('turn.dead_letter', { ...dead });
      void announceDeadLetter(line, dead);
    },
  };
}

/** With no AUTOHUB_OWNER, a notice is still logged and on the status page; nobody gets a DM. */
export function buildNotices(o: Common & { config: Pick<AppConfig, 'instance'>; wakes: Pick<Wakes, 'tell'> }): OwnerNotices {
  return new OwnerNotices({ store: o.store, instance: o.config.instance, log: o.log, now: o.now, tell: o.wakes.tell });
}

export function buildHealth(
  o: Pick<Common, 'store' | 'now'> & {
    config: Pick<AppConfig, 'role' | 'instance' | 'sealKeys'>;
    version: string;
    loop: LoopDelay;
    wakes: Pick<Wakes, 'turns'>;
    /** The edge's inbox as its drainer last saw it; omitted without the shared store. */
    inbox?: HealthMonitorOptions['inbox'];
    /** The alert URL's record; omitted without AUTOHUB_ALERT_URL. */
    alert?: HealthMonitorOptions['alert'];
    /** The bot's schedules as this copy knows them. */
    schedules?: HealthMonitorOptions['schedules'];
  },
): HealthMonitor {
  return new HealthMonitor({
    store: o.store,
    role: o.config.role,
    instance: o.config.instance,
    version: o.version,
    now: o.now,
    turns: o.wakes.turns,
    loop: () => o.loop.take(),
    inbox: o.inbox,
    ...(o.config.sealKeys ? { storeKeyIds: [o.config.sealKeys.current, ...o.config.sealKeys.previous].map(storeKeyId) } : {}),
    alert: o.alert,
    schedules: o.schedules,
  });
}

/** Acked turns that a stop could hand to nobody (the store refusing): kept here, drained at the next start. */
export function buildJournal(config: Pick<AppConfig, 'journal' | 'sealKeys'>): TurnJournal | undefined {
  if (!config.journal) return undefined;
  return new TurnJournal({ path: config.journal, sealer: config.sealKeys ? createSealer(config.sealKeys.current, config.sealKeys.previous) : undefined });
}

/**
 * Every turn answers through a handle whose client is fenced by the turn's
 * lease at each write: a view of the copy's one WebClient whose requests each
 * pass the fence right before they leave (lib/ratelimit/guarded-client.ts).
 */
export function turnHandles(
  o: Common & {
    config: Pick<AppConfig, 'instance' | 'role' | 'botToken' | 'maxReplyChars'>;
    slack: SlackClient;
    ai?: ReturnType<typeof buildAi> | undefined;
    taskDisplayMode?: TaskDisplayMode | undefined;
    ordered?: boolean | undefined;
    interruptible?: boolean | undefined;
    /** Each Web API call of a traced run becomes its span (lib/telemetry); undefined without OTEL_*. */
    tracer?: DeliveryTracer | undefined;
    /** A question this copy posted (ctx.ask): its deadline watched from now. */
    parked?: TurnHandleOptions['parked'];
  },
) {
  const { rateLimit, client } = o.slack;
  const copy = { instance: o.config.instance, role: o.config.role };
  const noStream = new Set<string>();
  const { tracer } = o;
  const clientFor = guardedClients(client, tracer ? (guard) => tracer.wrapFetch(rateLimit.fenced(guard)) : rateLimit.fenced);
  return (fence: TurnHandleOptions['fence'], key: string | undefined): TurnHandle =>
    new TurnHandle({
      fence,
      key,
      steps: o.store,
      records: o.store,
      parked: o.parked,
      clientFor,
      plain: client,
      closed: rateLimit.closed,
      copy,
      log: o.log,
      botToken: o.config.botToken,
      noStream,
      maxReplyChars: o.config.maxReplyChars,
      taskDisplayMode: o.taskDisplayMode,
      ordered: o.ordered,
      interruptible: o.interruptible,
      now: o.now,
      ai: o.ai?.turn,
      notes: o.ai?.turn.bot.notes,
    });
}

/**
 * Slack's AI-app surface for this copy: the bot's status exports, one status
 * book (when each thread's status was set, where Slack refuses it), and the
 * assistant threads in the shared store, sealed with the store key.
 */
export function buildAi(o: { bot: TurnModule; store: SharedStore; config: Pick<AppConfig, 'sealKeys'>; timers?: StatusTimers | undefined }) {
  const { sealKeys } = o.config;
  const threads = new AssistantThreads({ store: o.store, sealer: sealKeys ? createSealer(sealKeys.current, sealKeys.previous) : undefined });
  return { threads, turn: { bot: o.bot, book: new StatusBook(), timers: o.timers, threads } };
}

/** What the runner and the receiver both name themselves and log with. */
function copyParts(config: Pick<AppConfig, 'role' | 'instance'>, o: Pick<Common, 'log' | 'now'>) {
  return { role: config.role, instance: config.instance, log: o.log, now: o.now };
}

/** These fields of a part's inputs and no others (the rest of the config or of `Wakes` is other parts' business). */
function only<W, K extends keyof W>(from: W, ...names: K[]): Pick<W, K> {
  return Object.fromEntries(names.map((name) => [name, from[name]])) as Pick<W, K>;
}

/** Claims and runs every turn of this copy: the receiver hands it each delivery, the reaper each takeover. */
export function buildRunner(
  o: Common & {
    config: Pick<AppConfig, 'role' | 'instance' | 'lease' | 'retry' | 'maxTurns'>;
    keeper: LeaseKeeper;
    journal: TurnJournal | undefined;
    handleFor: ReturnType<typeof turnHandles>;
    /** One turn at a time per conversation (lib/conversation); undefined: turns of a thread run side by side. */
    conversation?: ReturnType<typeof conversationAdmit> | undefined;
    wakes: Pick<Wakes, 'lookIn' | 'slotFree' | 'deadLetter' | 'waitingOnStore'>;
    late?: LateAnswers | undefined;
    /** Traces each claim, run and end (lib/telemetry); undefined without OTEL_*. */
    tracer?: DeliveryTracer | undefined;
  },
): TurnRunner {
  const { config } = o;
  return new TurnRunner({
    ...copyParts(config, o),
    // The wakes it raises, each under its one name.
    ...only(o.wakes, 'lookIn', 'slotFree', 'deadLetter', 'waitingOnStore'),
    ...only(config, 'lease', 'retry', 'maxTurns'),
    ...only(o, 'store', 'keeper', 'journal', 'handleFor'),
    ...(o.late ? { late: o.late } : {}),
    ...(o.conversation ? { admit: o.conversation.admit, ended: o.conversation.ended } : {}),
    ...(o.tracer ? { tracer: o.tracer } : {}),
  });
}

/** What the receiver is built from. */
interface ReceiverInputs extends Pick<Common, 'log' | 'now'> {
  config: Pick<AppConfig, 'signingSecret' | 'healthToken' | 'role' | 'instance' | 'maxBodyBytes' | 'drainMs' | 'shedAt'>;
  runner: TurnRunner;
  health: HealthMonitor;
  wakes: Pick<Wakes, 'appRateLimited' | 'failOpen' | 'hint' | 'failover' | 'inboxKept'>;
}

/** HTTP for Slack and the edge: verifies, classifies and answers each request, and hands every turn to `runner`. */
export function buildReceiver(o: ReceiverInputs): FailoverReceiver {
  return new FailoverReceiver({
    ...copyParts(o.config, o),
    ...only(o.config, 'signingSecret', 'healthToken', 'maxBodyBytes', 'drainMs', 'shedAt'),
    ...only(o.wakes, 'appRateLimited', 'failOpen', 'hint', 'failover', 'inboxKept'),
    runner: o.runner,
    health: o.health,
  });
}

/** This copy's record on the status page, written by every look; a late event loop is logged. */
export function buildHeartbeat(o: {
  config: Pick<AppConfig, 'instance' | 'role' | 'lease'>;
  health: HealthMonitor;
  runner: Pick<TurnRunner, 'inFlight' | 'queued'>;
  log: Logger;
  now: () => number;
}): () => string {
  return () => {
    const loopDelay = o.health.sampleLoop();
    // A late loop makes this copy slow through no fault of the store or the peer: say so.
    if (loopDelay.p99Ms > 200) o.log.warn('loop.delayed', { p99Ms: loopDelay.p99Ms, maxMs: loopDelay.maxMs });
    const { body } = o.health.report();
    const record: CopyRecord = {
      at: new Date(o.now()).toISOString(),
      instance: o.config.instance,
      role: o.config.role,
      status: body.status,
      storeOk: body.store.ok,
      loopP99Ms: loopDelay.p99Ms,
      running: o.runner.inFlight,
      waiting: o.runner.queued,
      // Heartbeats ride on the looks: at most a jittered reaper interval apart (x 1.1) while the store answers.
      everyMs: Math.ceil(o.config.lease.reaperMs * 1.1),
    };
    return JSON.stringify(record);
  };
}

/** The edge's failover reasons are written to the status page at most this often. */
const FAILOVER_NOTE_MS = 10_000;

/** The edge's last failover reason, to the status page (a week), at most every FAILOVER_NOTE_MS. */
export function failoverNoter(store: Pick<SharedStore, 'note'>, now: () => number): (reason: string) => void {
  let lastNote = -Infinity;
  return (reason) => {
    if (now() - lastNote < FAILOVER_NOTE_MS) return;
    lastNote = now();
    void store.note(STATUS_KEYS.lastFailover, JSON.stringify({ at: new Date(now()).toISOString(), reason }), 7 * 24 * 3600);
  };
}

/** After an outage longer than Slack's retries, read back what Slack gave up on (AUTOHUB_CATCHUP); undefined when off. */
export function buildSweeper(
  o: Common & { config: Pick<AppConfig, 'catchup' | 'instance'>; client: WebClient; wakes: Pick<Wakes, 'inject'> },
): CatchupSweeper | undefined {
  const { catchup } = o.config;
  if (!catchup) return undefined;
  return new CatchupSweeper({
    client: o.client,
    store: o.store,
    inject: o.wakes.inject,
    instance: o.config.instance,
    log: o.log,
    maxMs: catchup.maxMs,
    retryWindowMs: catchup.retryWindowMs,
    paceMs: catchup.paceMs,
    everyMs: catchup.everyMs,
    now: o.now,
  });
}

/** Takes over turns whose owner's lease lapsed, and retries that fall due; runs on every copy. */
export function buildReaper(
  o: Common & {
    config: Pick<AppConfig, 'instance' | 'role' | 'lease' | 'retry'>;
    wakes: Pick<Wakes, 'deadLetter' | 'unleased' | 'resume' | 'capacity' | 'heartbeat' | 'look'>;
  },
): Reaper {
  const { config, wakes } = o;
  return new Reaper({
    store: o.store,
    owner: { instance: config.instance, role: config.role },
    settings: config.lease,
    retry: config.retry,
    deadLetter: wakes.deadLetter,
    unleased: wakes.unleased,
    resume: wakes.resume,
    capacity: wakes.capacity,
    heartbeat: wakes.heartbeat,
    look: wakes.look,
    log: o.log,
    now: o.now,
  });
}

/** Watches the other copy's health route (no store command) for fast takeovers; undefined without AUTOHUB_PEER_URL. */
export function buildPeerWatch(o: {
  config: Pick<AppConfig, 'peer' | 'healthToken'>;
  log: Logger;
  wakes: Pick<Wakes, 'peerLost' | 'peerBack'>;
}): PeerWatch | undefined {
  const { peer, healthToken } = o.config;
  if (!peer) return undefined;
  return new PeerWatch({
    url: peer.url,
    token: healthToken ?? undefined,
    everyMs: peer.everyMs,
    log: o.log,
    peerLost: o.wakes.peerLost,
    peerBack: o.wakes.peerBack,
  });
}

/** The Bolt app on the receiver, with autohub's listeners and the bot's own; `registered` settles when the bot's register does. */
export function buildApp(o: {
  config: Pick<AppConfig, 'botToken' | 'owners' | 'allowBots'>;
  receiver: FailoverReceiver;
  clientOptions: WebClientOptions;
  client: WebClient;
  health: HealthMonitor;
  store: SharedStore;
  bot: TurnModule;
  log: Logger;
  /** What this copy's peer watch sees of the other copy, for the status page. */
  peer?: (() => PeerView | undefined) | undefined;
  ai?: ReturnType<typeof buildAi> | undefined;
}): { app: App<AutohubContext>; registered: void | Promise<void> } {
  const { log, bot } = o;
  const app = new App<AutohubContext>({
    receiver: o.receiver,
    authorize: resilientAuthorize(new WebClient(undefined, o.clientOptions), o.config.botToken),
    clientOptions: o.clientOptions,
    logger: slackLogger(log),
    // Bolt's conversation store is per process (the other copy never sees what it holds), and its
    // lookup makes an Error for every delivery it has nothing for: off. State a turn keeps goes in ctx.step.
    convoStore: false,
  });
  // Rethrown, so the turn runner sees every failure: it retries or dead-letters the turn (none is dropped after the ack).
  app.error(async (error) => {
    log.debug('bolt.error', { code: error.code });
    throw error;
  });
  registerConversation(app, log, {
    turn: bot.takeTurn,
    allowBots: o.config.allowBots,
    loops: new BotLoops({ store: o.store }),
    edits: bot.edits,
    followUps: bot.followUps ? new FollowUpThreads({ store: o.store, followUps: bot.followUps }) : undefined,
  });
  if (bot.schedules?.length) registerSchedules(app, log, bot.takeTurn);
  if (o.ai) registerAssistant(app, { bot, threads: o.ai.threads, client: o.client, log });
  // Your module's own listeners: every delivery they see was claimed first, and events hold a lease.
  const helpers: RegisterHelpers = {
    log,
    client: o.client,
    turnOf,
    answer: async (args, takeTurn = bot.takeTurn) => {
      const handle = turnOf(args.context);
      if (!handle) throw new Error('answer() needs the context of a delivery autohub received');
      await handle.answer(args as Parameters<TurnHandle['answer']>[0], takeTurn);
    },
  };
  const registered = bot.register?.(app, helpers);
  registerCommand(app, o.health, o.store, o.config.owners, o.peer);
  registerHome(app, o.health, o.store, log, o.config.owners, o.peer);
  return { app, registered };
}
