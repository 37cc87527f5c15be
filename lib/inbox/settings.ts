/**
 * The inbox's settings, read the same way by the edge (Worker vars and
 * secrets, or `npm run edge`'s environment) and by the copies.
 *
 * Budget at the edge, from the moment Slack's request arrives (Slack waits 3 s):
 *   with the inbox: hub + cloud legs within EDGE_BUDGET_MS - EDGE_INBOX_TIMEOUT_MS
 *                   (2,800 - 400 = 2,400 ms), then one store write cut to what
 *                   is left of the 2,800 ms (400 ms at most), + overhead <= 100 ms
 *   without it:     the legs get the whole 2,800 ms, as before.
 */
import { ConfigError } from '../errors/index.js';

export interface InboxSettings {
  url: string;
  token: string;
  /** AUTOHUB_STORE_KEY as given (hex or base64), or undefined: derived from the signing secret. */
  storeKey: string | undefined;
  /** At this count the edge refuses (503, `edge.inbox_full`). @default 10000 */
  maxCount: number;
  /** Entries older than this are dropped by the edge's next write, logged (`edge.inbox_expired`) and counted. @default 24 h */
  maxAgeMs: number;
  /** The edge's one store write for a delivery no copy accepted. @default 400 */
  writeTimeoutMs: number;
}

type EnvLike = Readonly<Record<string, unknown>>;

function text(env: EnvLike, name: string): string | undefined {
  const value = env[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function whole(env: EnvLike, name: string, fallback: number, min: number, max: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new ConfigError(name, `a whole number from ${min} to ${max}`, value);
  return Number(value);
}

/** Undefined when the shared store is not configured (no inbox: the edge answers 503 as before). */
export function parseInboxSettings(env: EnvLike): InboxSettings | undefined {
  const url = text(env, 'UPSTASH_REDIS_REST_URL');
  const token = text(env, 'UPSTASH_REDIS_REST_TOKEN');
  if (url === undefined && token === undefined) return undefined;
  if (url === undefined) throw new ConfigError('UPSTASH_REDIS_REST_URL', 'set together with UPSTASH_REDIS_REST_TOKEN');
  if (token === undefined) throw new ConfigError('UPSTASH_REDIS_REST_TOKEN', 'set together with UPSTASH_REDIS_REST_URL');
  return {
    url,
    token,
    storeKey: text(env, 'AUTOHUB_STORE_KEY'),
    maxCount: whole(env, 'AUTOHUB_INBOX_MAX', 10_000, 1, 1_000_000),
    maxAgeMs: whole(env, 'AUTOHUB_INBOX_MAX_HOURS', 24, 1, 24 * 7) * 3_600_000,
    writeTimeoutMs: whole(env, 'EDGE_INBOX_TIMEOUT_MS', 400, 50, 2_000),
  };
}
