/**
 * The Bolt app, hub or cloud copy: the same code, told apart by its config.
 * Its parts are built in app/parts.ts; who wakes whom is app/wiring.ts.
 */
import { readFileSync } from 'node:fs';
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { AppConfig } from '../lib/config/index.js';
import type { Logger } from '../lib/log/index.js';
import { refusalSink } from '../lib/ratelimit/index.js';
import { LeaseKeeper, type Reaper } from '../lib/lease/index.js';
import type { FailoverReceiver } from '../lib/receiver/index.js';
import { LateAnswers, type TurnRunner } from '../lib/runner/index.js';
import type { HealthMonitor } from '../lib/liveness/index.js';
import type { OwnerNotices } from '../lib/notice/index.js';
import type { LegChecker } from '../lib/legs/index.js';
import { statusRecorder, type StatusRecorder } from '../lib/status/index.js';
import { createStore, MemoryStore, type SharedStore } from '../lib/store/index.js';
import { LoopDelay, withDeadline, type Sleep } from '../lib/time/index.js';
import { conversationAdmit, ConversationGate } from '../lib/conversation/index.js';
import { createLegChecker } from './legs.js';
import type { StatusTimers } from '../lib/turn/index.js';
import type { TakeTurn, TurnModule } from '../lib/bot/index.js';
import {
  botOf,
  buildAi,
  buildApp,
  buildHealth,
  buildHeartbeat,
  buildJournal,
  buildNotices,
  buildPeerWatch,
  buildReaper,
  buildReceiver,
  buildRunner,
  buildSlackClient,
  buildSweeper,
  failoverNoter,
  ownerDMs,
  turnHandles,
} from './parts.js';
import { journalUnfinished } from './shutdown-journal.js';
import { partsOnceWired, wire } from './wiring.js';
import { buildInboxDrainer } from './inbox.js';
import { ownerLine } from './listeners/announce.js';
import { AlertSender } from '../lib/alert/index.js';
import { Telemetry } from '../lib/telemetry/index.js';
import { checkedSchedules, Scheduler } from '../lib/schedule/index.js';
import { registerAsk } from './listeners/ask.js';
import { QuestionWatch } from '../lib/ask/index.js';
import type { InboxDrainer } from '../lib/inbox/index.js';

/**
 * How long a starting copy's question timeouts wait, at most, for the runs of the clicks its start drain took
 * (a busy copy may never be idle: then they go on after this; the watch also waits while kept deliveries run).
 */
const KEPT_CLICKS_MAX_WAIT_MS = 10_000;

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
  /** The alert URL's `fetch` (lib/alert). @default globalThis.fetch */
  alertFetch?: typeof fetch | undefined;
  /** The network `fetch` under the rate-limit layer. @default the Slack transport (lib/ratelimit/slack-transport.ts) */
  fetch?: typeof fetch | undefined;
  /** @default Date.now */
  now?: (() => number) | undefined;
  /** How the rate-limit layer waits out a window. @default setTimeout-based */
  sleep?: Sleep | undefined;
  /** Your bot: a module as AUTOHUB_TURN names it (app/turn-module.ts loads it), or its takeTurn alone. @default the demo turn (app/turn.ts) */
  turn?: TurnModule | TakeTurn | undefined;
  /** How the thinking status waits for its next refresh (lib/turn/status.ts). @default setTimeout, unref'd */
  timers?: StatusTimers | undefined;
}

export type { RegisterHelpers } from '../lib/bot/index.js';

export interface Autohub {
  app: App;
  receiver: FailoverReceiver;
  /** Claims and runs this copy's turns (the receiver hands it each delivery, the reaper each takeover). */
  runner: TurnRunner;
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
  /** Posts every owner notice to AUTOHUB_ALERT_URL (lib/alert); undefined without it. */
  alert: AlertSender | undefined;
  /** Exports a trace per delivery when OTEL_* is set (lib/telemetry); a no-op otherwise. */
  telemetry: Telemetry;
  /** Fires the bot's schedules (lib/schedule): each slot injected into the runner, claimed once across the copies. */
  scheduler: Scheduler;
  /** Drains the edge's inbox; undefined without the shared store. */
  readonly inbox: InboxDrainer | undefined;
  /** Probe the store once, then listen; health turns 200. */
  start(): Promise<void>;
  /** Drain and close (health 503 at once). */
  stop(): Promise<void>;
}

export function createAutohub(options: AutohubOptions): Autohub {
  const { config, log } = options;
  const now = options.now ?? Date.now;
  const bot = botOf(options.turn, config);
  // A bot's schedules, checked before anything starts: a wrong one stops start-up with one line (a ConfigError).
  const schedules = checkedSchedules(bot.schedules, config.turn ?? 'the bot module');
  const store = options.store ?? createStore(config, log);
  const status = statusRecorder(store);
  const loop = new LoopDelay();
  const keeper = new LeaseKeeper(store, config.lease, log, now);
  const common = { store, log, now: options.now };
  // The parts call one another only through `wakes`, answered once they all exist (below).
  const wired = partsOnceWired();
  const wakes = wire(wired.get);
  // OpenTelemetry, loaded at start() only when OTEL_* asks for it; a no-op tracer otherwise (lib/telemetry).
  const telemetry = new Telemetry(config.telemetry, { instance: config.instance, role: config.role, version: VERSION }, log);
  const tracer = telemetry.enabled ? telemetry : undefined;
  const slack = buildSlackClient({ config, log, store, fetch: options.fetch, now: options.now, sleep: options.sleep, wakes, tracer });
  const { client } = slack;
  const refusals = refusalSink({ path: config.refusalLog, log });
  const notices = buildNotices({ ...common, config, wakes });
  // The owner's line outside Slack: it needs neither the bot token nor Slack (a revoked token is what it must report).
  const alert = config.alertUrl
    ? new AlertSender({ url: config.alertUrl, instance: config.instance, role: config.role, log, now: options.now, fetch: options.alertFetch })
    : undefined;
  const line = ownerLine(client, config.owners, log, alert);
  const inboxRef: { drainer: ReturnType<typeof buildInboxDrainer> } = { drainer: undefined };
  // The health body and /autohub status show the inbox as its drainer last saw it: no store command of their own.
  const health = buildHealth({
    ...common,
    config,
    version: VERSION,
    loop,
    wakes,
    ...(config.upstash && config.sealKeys ? { inbox: () => inboxRef.drainer?.last } : {}),
    ...(alert ? { alert: () => alert.view } : {}),
    ...(schedules.length > 0 ? { schedules: () => scheduler.view() } : {}),
  });
  const journal = buildJournal(config);
  const ai = buildAi({ bot, store, config, timers: options.timers });
  const handleFor = turnHandles({
    ...common,
    config,
    slack,
    ai,
    taskDisplayMode: bot.taskDisplayMode,
    ordered: bot.concurrency !== 'parallel',
    interruptible: bot.concurrency === 'interrupt',
    tracer,
    parked: (qid, deadline) => questions.noted(qid, deadline),
  });
  // One turn at a time per conversation, unless the bot asks for parallel turns (lib/conversation); `interrupt` stops the running one.
  const conversation = bot.concurrency === 'parallel' ? undefined : conversationAdmit(new ConversationGate({ store, log, now, mode: bot.concurrency }));
  // A command's or a click's answer that nobody reads where it was given reaches the person all the same.
  const late = new LateAnswers({
    send: options.fetch ?? ((input, init) => fetch(input, init as RequestInit)),
    dm: async (user, text, blocks) => {
      await client.chat.postMessage({ channel: user, text, ...(blocks ? { blocks: blocks as never } : {}) });
    },
    log,
    now,
  });
  const runner = buildRunner({ ...common, config, keeper, journal, handleFor, conversation, wakes, late, tracer });
  const receiver = buildReceiver({ log, now: options.now, config, runner, health, wakes });
  const heartbeat = buildHeartbeat({ config, health, runner, log, now });
  const sweeper = buildSweeper({ ...common, config, client, wakes });
  const reaper = buildReaper({ ...common, config, wakes });
  // Each slot injected like a found mention, under the slot's own event id: run once across the copies (lib/schedule).
  const scheduler = new Scheduler({
    schedules,
    role: config.role,
    instance: config.instance,
    inject: (envelope) => runner.inject(envelope, { via: 'schedule' }),
    log,
    now,
    graceMs: config.scheduleGraceMs,
  });
  const peer = buildPeerWatch({ config, log, wakes });
  const legs = createLegChecker(config, { store, line, log, now: options.now });
  /** Since when this copy serves (a sweep finding mentions from after it means they were never delivered here). */
  let servingSince = Infinity;

  // Who wakes whom: receiver <-> reaper, peer -> reaper, reaper's look -> sweeper -> notices, Web API -> notices and status.
  wired.set({
    runner,
    reaper,
    keeper,
    sweeper,
    notices,
    status,
    refusals,
    owners: ownerDMs(line, log),
    heartbeat,
    noteFailover: failoverNoter(store, now),
    servingSince: () => servingSince,
    log,
    leaseMs: config.lease.leaseMs,
    storeAllowance: config.storeAllowance,
    inbox: { look: () => inboxRef.drainer?.look(), drainNow: (reason) => void inboxRef.drainer?.drain(reason).catch(() => {}) },
    questions: { look: (throttled) => questions.look(throttled) },
  });

  const peerView = peer
    ? () => ({ role: config.role === 'hub' ? ('cloud' as const) : ('hub' as const), state: peer.state, downSince: peer.downSince })
    : undefined;
  // Bolt's respond() posts with its clientOptions' fetch: a refused one goes by DM (the late answers).
  const clientOptions = { ...slack.clientOptions, fetch: late.fetchFor(slack.clientOptions.fetch ?? ((input, init) => fetch(input, init as RequestInit))) };
  const { app, registered } = buildApp({ config, receiver, clientOptions, client, health, store, bot, log, peer: peerView, ai });
  // ctx.ask: a question's click, on either copy, resumes its parked turn once (lib/ask); so does its deadline.
  registerAsk(app, {
    turn: bot.takeTurn,
    log,
    store,
    client,
    inject: (envelope) => runner.inject(envelope, { via: 'answer' }),
    answered: (qid) => questions.answered(qid),
  });
  // Its timeouts wait for the clicks the edge kept while this copy was down (the start drain, then their runs).
  let keptTaken: () => void = () => {};
  const keptClicksTaken = new Promise<void>((resolve) => (keptTaken = resolve));
  const questions = new QuestionWatch({
    store,
    client,
    log,
    now,
    inject: (envelope) => runner.inject(envelope, { via: 'answer' }),
    everyMs: config.askWatchMs,
    ready: keptClicksTaken,
    keptRunning: () => runner.keptRunning > 0,
  });
  // The edge's inbox: drained at start, when the peer answers again, and on the looks (one ZCARD an hour).
  inboxRef.drainer = buildInboxDrainer({ config, runner, store, line, log, now, ...(options.fetch ? { fetch: options.fetch } : {}) });

  return {
    app,
    receiver,
    runner,
    health,
    store,
    keeper,
    reaper,
    status,
    client,
    notices,
    legs,
    alert,
    telemetry,
    scheduler,
    get inbox() {
      return inboxRef.drainer;
    },
    start: async () => {
      await registered;
      await telemetry.start();
      servingSince = now();
      loop.start();
      await health.refresh();
      await receiver.start(config.port);
      keeper.start();
      reaper.start();
      void runner.runKept('start');
      void Promise.resolve(inboxRef.drainer?.drain('start'))
        .catch(() => {})
        // Every run the drain started has ended, and every run those started (a kept click resumes its question's turn
        // before its own run ends): drained() looks again after each end, with no polling.
        .then(() => withDeadline(runner.drained(), KEPT_CLICKS_MAX_WAIT_MS, () => undefined))
        .finally(keptTaken);
      peer?.start();
      legs?.start();
      scheduler.start();
      questions.start();
      log.info('app.started', { port: receiver.port, store: store.kind, storeOk: health.store.ok, version: VERSION, peer: Boolean(peer) });
    },
    stop: async () => {
      scheduler.stop();
      questions.stop();
      peer?.stop();
      await legs?.stop();
      reaper.stop();
      // A sweep cut short lets its lock go: otherwise no copy could sweep until it lapsed.
      await Promise.all([receiver.stop(), sweeper?.stop()]);
      keeper.stop();
      // Nothing acked ends with the process: the in-process store's unfinished turns go to the journal.
      // (A store passed in, as the drill's shared one, outlives this copy: it keeps its own turns.)
      if (!options.store && store instanceof MemoryStore) journalUnfinished(store, journal, log);
      loop.stop();
      await status.flush();
      await telemetry.shutdown();
    },
  };
}
