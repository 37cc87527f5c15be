/**
 * The Bolt app, hub or cloud copy: the same code, told apart by its config.
 */
import { readFileSync } from 'node:fs';
import { App } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { createStore, type ClaimStore } from '../lib/claim/index.js';
import type { AppConfig } from '../lib/config/index.js';
import { slackLogger, type Logger } from '../lib/log/index.js';
import { createRateLimitFetch, refusalSink } from '../lib/ratelimit/index.js';
import { FailoverReceiver, HealthMonitor, Reaper } from '../lib/receiver/index.js';
import type { Sleep } from '../lib/time/index.js';
import { resilientAuthorize } from './authorize.js';
import { registerCommand } from './listeners/command.js';
import { registerConversation } from './listeners/conversation.js';

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
  /** Probe the store once, then listen; health turns 200. */
  start(): Promise<void>;
  /** Drain and close (health 503 at once). */
  stop(): Promise<void>;
}

export function createAutohub(options: AutohubOptions): Autohub {
  const { config, log } = options;
  const store = options.store ?? createStore(config, log);
  const health = new HealthMonitor({ store, role: config.role, instance: config.instance, version: VERSION, now: options.now });
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
      onRefusal: refusalSink({ path: config.refusalLog, log }),
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
  registerCommand(app, health);

  return {
    app,
    receiver,
    health,
    store,
    reaper,
    start: async () => {
      await health.refresh();
      await receiver.start(config.port);
      reaper.start();
      log.info('app.started', { port: receiver.port, store: store.kind, storeOk: health.store.ok, version: VERSION });
    },
    stop: async () => {
      reaper.stop();
      await receiver.stop();
    },
  };
}
