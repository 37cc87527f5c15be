/**
 * The Bolt app, hub or cloud copy: the same code, told apart by its config.
 */
import { readFileSync } from 'node:fs';
import { App } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { createStore, type ClaimStore } from '../lib/store/index.js';
import type { AppConfig } from '../lib/config/index.js';
import { slackLogger, type Logger } from '../lib/log/index.js';
import { createRateLimitFetch, refusalSink } from '../lib/ratelimit/index.js';
import { FailoverReceiver, HealthMonitor, Reaper } from '../lib/receiver/index.js';
import { statusRecorder, type StatusRecorder } from '../lib/status/index.js';
import type { Sleep } from '../lib/time/index.js';
import { resilientAuthorize } from './authorize.js';
import { registerCommand } from './listeners/command.js';
import { registerConversation } from './listeners/conversation.js';
import { registerHome } from './listeners/home.js';

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface AutohubOptions {
  config: AppConfig;
  log: Logger;
  /** @default createStore(config): Upstash when configured, else in-process */
  store?: ClaimStore | undefined;
  /** The network `fetch` under the rate-limit layer. @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
  /** @default Date.now */
  now?: (() => number) | undefined;
  /** How the rate-limit layer waits out a window. @default setTimeout-based */
  sleep?: Sleep | undefined;
}

export interface Autohub {
  app: App;
  receiver: FailoverReceiver;
  health: HealthMonitor;
  store: ClaimStore;
  /** Takes over turns whose owner's lease lapsed; runs on every copy. */
  reaper: Reaper;
  /** What the status page is made of; gathered and written about once a second. */
  status: StatusRecorder;
  /** Probe the store once, then listen; health turns 200. */
  start(): Promise<void>;
  /** Drain and close (health 503 at once). */
  stop(): Promise<void>;
}

export function createAutohub(options: AutohubOptions): Autohub {
  const { config, log } = options;
  const store = options.store ?? createStore(config, log);
  const now = options.now ?? Date.now;
  const status = statusRecorder(store);
  const health = new HealthMonitor({
    store,
    role: config.role,
    instance: config.instance,
    version: VERSION,
    now: options.now,
    onProbe: ({ body }) =>
      status.copy(config.role, { at: new Date(now()).toISOString(), instance: config.instance, status: body.status, storeOk: body.store.ok }),
  });
  const receiver = new FailoverReceiver({
    signingSecret: config.signingSecret,
    store,
    health,
    role: config.role,
    instance: config.instance,
    log,
    maxBodyBytes: config.maxBodyBytes,
    drainMs: config.drainMs,
    lease: config.lease,
    now: options.now,
    // A turn, for the status page, is an answer to a person: a mention or a direct message.
    onTurn: ({ ackMs, claim, eventType }) => {
      if (eventType === 'app_mention' || eventType === 'message') {
        status.turn({ at: new Date(now()).toISOString(), role: config.role, instance: config.instance, ackMs, claim });
      }
    },
  });
  const reaper = new Reaper(store, { instance: config.instance, role: config.role }, config.lease, (t) => receiver.resume(t), log);
  const clientOptions: WebClientOptions = {
    slackApiUrl: config.slackApiUrl,
    // Retries are the rate-limit layer's job, so no wait is doubled and a
    // post whose response was lost is not sent a second time.
    retryConfig: { retries: 0 },
    logger: slackLogger(log),
    fetch: createRateLimitFetch({
      fetch: options.fetch,
      now: options.now,
      sleep: options.sleep,
      maxAttempts: config.rateLimit.attempts,
      budgetMs: config.rateLimit.budgetMs,
      shared: store,
      onRefusal: ((sink) => (record) => {
        sink(record);
        status.refusal(record);
      })(refusalSink({ path: config.refusalLog, log })),
      instance: config.instance,
    }),
  };
  const app = new App({
    receiver,
    authorize: resilientAuthorize(new WebClient(undefined, clientOptions), config.botToken),
    clientOptions,
    logger: slackLogger(log),
  });
  app.error(async (error) => {
    log.error('bolt.error', { error });
  });
  registerConversation(app, log);
  registerCommand(app, health, store);
  registerHome(app, health, store, log);
  // The status page's view of this copy stays fresh even when nobody probes its health.
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  return {
    app,
    receiver,
    health,
    store,
    reaper,
    status,
    start: async () => {
      await health.refresh();
      await receiver.start(config.port);
      reaper.start();
      heartbeat = setInterval(() => void health.refresh(), 30_000);
      heartbeat.unref();
      log.info('app.started', { port: receiver.port, store: store.kind, storeOk: health.store.ok, version: VERSION });
    },
    stop: async () => {
      reaper.stop();
      clearInterval(heartbeat);
      await receiver.stop();
      await status.flush();
    },
  };
}
