/**
 * The edge's settings, read from a Worker's `env` or Node's `process.env`.
 *
 * Budget, from the moment Slack's request reaches the edge (Slack waits 3 s):
 *   first delivery: hub leg 1,400 ms + cloud leg 1,300 ms + overhead <= 100 ms = 2,800 ms
 *   retry:          probe 300 ms, then the hub or cloud leg, each cut to what
 *                   is left of the same 2,800 ms
 * The copies answer within 1,200 ms of arrival even when Redis hangs (their
 * claim is bounded at 1,000 ms), so a live copy fits either leg.
 */
import { httpUrl } from '../env/index.js';
import { ConfigError } from '../errors/index.js';

export interface EdgeSettings {
  hubUrl: string;
  cloudUrl: string;
  /** @default 1400 */
  hubTimeoutMs: number;
  /** @default 1300 */
  cloudTimeoutMs: number;
  /** The retry path's `GET HUB_URL/slack/health`. @default 300 */
  probeTimeoutMs: number;
  /** Everything the edge does for one delivery. @default 2800 */
  budgetMs: number;
  /** How long a failed hub counts as down for retries. @default 30000 */
  downTtlMs: number;
  /**
   * Required: the edge verifies every delivery before it routes, probes or
   * forwards anything, so a forged one costs the copies nothing (no claim,
   * no probe, no turn).
   */
  signingSecret: string;
  /** Bearer token for the edge's full health body (AUTOHUB_HEALTH_TOKEN); without it only the status is shown. */
  healthToken: string | undefined;
  /** @default 1 MiB */
  maxBodyBytes: number;
}

type EnvLike = Readonly<Record<string, unknown>>;

function text(env: EnvLike, name: string): string | undefined {
  const value = env[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function required(env: EnvLike, name: string, expected: string): string {
  const value = text(env, name);
  if (value === undefined) throw new ConfigError(name, expected);
  return value;
}

function baseUrl(env: EnvLike, name: string): string {
  const url = httpUrl(name, text(env, name), "the copy's base URL, e.g. https://hub.example.com (no path)");
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function ms(env: EnvLike, name: string, fallback: number, max: number): number {
  const value = text(env, name) ?? (typeof env[name] === 'number' ? String(env[name]) : undefined);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new ConfigError(name, `a whole number of milliseconds from 1 to ${max}`, value);
  }
  return Number(value);
}

export function parseEdgeSettings(env: EnvLike): EdgeSettings {
  const settings: EdgeSettings = {
    hubUrl: baseUrl(env, 'HUB_URL'),
    cloudUrl: baseUrl(env, 'CLOUD_URL'),
    hubTimeoutMs: ms(env, 'EDGE_HUB_TIMEOUT_MS', 1400, 10_000),
    cloudTimeoutMs: ms(env, 'EDGE_CLOUD_TIMEOUT_MS', 1300, 10_000),
    probeTimeoutMs: ms(env, 'EDGE_PROBE_TIMEOUT_MS', 300, 5_000),
    budgetMs: ms(env, 'EDGE_BUDGET_MS', 2800, 10_000),
    downTtlMs: ms(env, 'EDGE_DOWN_TTL_MS', 30_000, 600_000),
    signingSecret: required(env, 'SLACK_SIGNING_SECRET', "the Slack app's signing secret (`wrangler secret put SLACK_SIGNING_SECRET`)"),
    healthToken: text(env, 'AUTOHUB_HEALTH_TOKEN'),
    maxBodyBytes: ms(env, 'EDGE_MAX_BODY_BYTES', 1_048_576, 16_777_216),
  };
  return settings;
}
