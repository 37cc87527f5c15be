/** The store a copy uses: Upstash when configured, else in-process with a warning. */
import type { Logger } from '../log/index.js';
import { MemoryStore } from './memory-store.js';
import { logReporter } from './reporter.js';
import type { SharedStore, UpstashSettings } from './roles.js';
import { createSealer } from './seal.js';
import { UpstashStore } from './upstash-store.js';

/** What the store is made from: the slice of a copy's settings it reads (lib/config's AppConfig is one). */
export interface StoreConfig {
  upstash: UpstashSettings | null;
  claim: { attemptMs: number; attempts: number };
  /** The fuse of every store command but the claim (AUTOHUB_STORE_ATTEMPT_MS). @default DEFAULT_COMMAND_MS */
  storeAttemptMs?: number;
  sealKeys: { current: Buffer; previous: Buffer[] } | null;
  /** Slack's retry window: a silence in serving longer than it is recorded for the catch-up sweep. */
  catchup?: { retryWindowMs: number } | null;
}

/** The store URL's host alone, for the logs. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

export function createStore(config: StoreConfig, log: Logger): SharedStore {
  // Silences longer than Slack's retries are recorded for the catch-up sweep.
  const gapMs = config.catchup?.retryWindowMs ?? 0;
  if (config.upstash) {
    const sealer = config.sealKeys ? createSealer(config.sealKeys.current, config.sealKeys.previous) : undefined;
    return new UpstashStore({
      settings: config.upstash,
      budget: config.claim,
      ...(config.storeAttemptMs !== undefined ? { commandMs: config.storeAttemptMs } : {}),
      reporter: logReporter(log, { host: hostOf(config.upstash.url) }),
      gapMs,
      ...(sealer ? { sealer } : {}),
    });
  }
  log.warn('store.in_process', {
    detail:
      'UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN are not set: claims live in this process only, ' +
      'nothing is shared with the other copy, and a delivery that reaches both may be answered twice',
  });
  return new MemoryStore({ gapMs });
}
