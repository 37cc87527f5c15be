/**
 * How this project builds an @upstash/redis client. The only way to set its
 * abort signal here is `attemptMs`: every command gets a fresh
 * `AbortSignal.timeout(attemptMs)` from a factory the client calls per
 * request. A static signal, which fires once and then turns every later SET
 * NX into a synthetic `null` (read as a duplicate), cannot be configured.
 */
import { Redis, type RedisConfigNodejs } from '@upstash/redis';
import type { UpstashSettings } from '../config/index.js';

export type ClaimClient = Pick<Redis, 'set' | 'get' | 'pipeline' | 'ping' | 'eval' | 'lrange'>;

export function upstashClientOptions(settings: UpstashSettings, attemptMs: number): RedisConfigNodejs {
  return {
    url: settings.url,
    token: settings.token,
    // One request per command (POST /): the adapter bounds and counts each one.
    enableAutoPipelining: false,
    // One request per attempt; the adapter owns the retries and their budget,
    // because the client's backoff sleep is not cut short by the signal.
    retry: { retries: 0 },
    signal: () => AbortSignal.timeout(attemptMs),
    automaticDeserialization: false,
    enableTelemetry: false,
  };
}

export function createUpstashClient(settings: UpstashSettings, attemptMs: number): ClaimClient {
  return new Redis(upstashClientOptions(settings, attemptMs));
}
