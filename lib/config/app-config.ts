/**
 * The Bolt app's settings (hub and cloud copy), parsed once at start-up from
 * the environment. Anything missing or malformed throws a ConfigError whose
 * message is what the operator sees: one line per setting, all of them at once.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_COMMAND_MS, deriveStoreKey, type Role, type UpstashSettings } from '../store/index.js';
import { ConfigError } from '../errors/index.js';
import type { Level } from '../log/index.js';
import { DEFAULT_MAX_REPLY_CHARS } from '../turn/reply-cap.js';
import { parseAllowBots, type AllowBots } from '../turn/bots.js';
import { readEnum, readInt, readRaw, readRequired, readUrl, shownUrl, type Env } from '../env/index.js';
import { SettingsReader } from './collect.js';
import { readTelemetry, type TelemetrySettings } from '../telemetry/index.js';

export interface AppConfig {
  role: Role;
  port: number;
  instance: string;
  signingSecret: string;
  botToken: string;
  slackApiUrl: string;
  /** null: no shared store, an in-process one is used and nothing is shared. */
  upstash: UpstashSettings | null;
  /** What stored bodies are sealed under (lib/store/seal.ts); null only for tools run without a key or secret. */
  sealKeys: { current: Buffer; previous: Buffer[]; derived: boolean } | null;
  claim: { attemptMs: number; attempts: number };
  /**
   * AUTOHUB_STORE_ATTEMPT_MS: the fuse of every store command but the claim (confirms, renewals,
   * commits, looks, steps, finishes), which are off Slack's ack path (lib/store/budget.ts).
   */
  storeAttemptMs: number;
  /** Where rate-limit refusals are written, one JSON line each; null turns the file off. */
  refusalLog: string | null;
  /** AUTOHUB_UPSTASH_MONTHLY_COMMANDS: the store plan's commands a month (the owner is told at 80%); 0: no limit. */
  storeAllowance: number;
  /** AUTOHUB_INBOX_MAX_HOURS, as the edge reads it: a kept delivery older than this is dropped at the drain (counted, logged), not run. */
  inboxMaxAgeMs: number;
  /** AUTOHUB_JOURNAL: where acked turns go that the store would not take back at shutdown; null: off. */
  journal: string | null;
  /** AUTOHUB_SCHEDULE_GRACE_MS: how long after a schedule's slot the cloud copy fires it, when the hub has not (lib/schedule). */
  scheduleGraceMs: number;
  /** AUTOHUB_ASK_WATCH_MS: how often a copy reads the deadlines of the questions parked turns wait on (lib/ask/watch.ts). */
  askWatchMs: number;
  /** Attempts and waiting budget of one Web API call under rate limits. */
  rateLimit: { attempts: number; budgetMs: number };
  drainMs: number;
  /** Event turns' leases (see lib/store/lease.ts for the arithmetic). */
  lease: { leaseMs: number; renewMs: number; reaperMs: number };
  /** How a failed turn is tried again before it becomes a dead letter. */
  retry: { attempts: number; windowMs: number; firstDelayMs: number; factor: number };
  /** Turns run at once; more wait, their leases kept alive. */
  maxTurns: number;
  /** The hub sends new event deliveries back to the edge (503 busy) while this many turns wait here; 0: never. */
  shedAt: number;
  /** AUTOHUB_ALLOW_BOTS: the other apps whose @mentions and DMs are turns (`*`: all); empty: none. */
  allowBots: AllowBots;
  /** Slack user ids told of dead letters by DM, and the only ones shown the status page; empty: everyone. */
  owners: string[];
  /**
   * AUTOHUB_ALERT_URL: every owner notice is also POSTed there as JSON (lib/alert), beside the DM: a
   * Slack incoming webhook, Discord, ntfy or any webhook. null: the DM alone.
   */
  alertUrl: string | null;
  /** The standard OTEL_* variables (lib/telemetry/settings.ts): where a trace per delivery is exported; null: none (no OpenTelemetry module is loaded). */
  telemetry: TelemetrySettings | null;
  /** The other copy's base URL, watched through its health route (no store command) for fast takeovers. */
  peer: { url: string; everyMs: number } | null;
  /** Bearer token that unlocks the full health body; null: only the status is ever shown. */
  healthToken: string | null;
  /**
   * The legs proven continuously (lib/legs): the edge's public base URL (AUTOHUB_EDGE_URL) and how often
   * one copy sends a signed probe down each leg (AUTOHUB_VERIFY_EVERY_MS). null: no edge URL, or `0`.
   */
  legs: { edgeUrl: string; everyMs: number } | null;
  maxBodyBytes: number;
  /** AUTOHUB_MAX_REPLY_CHARS: the longest answer shown; past it the answer is cut, with a note (lib/turn/reply-cap.ts). */
  maxReplyChars: number;
  logLevel: Level;
  /** How long the demo turn (app/turn.ts) pretends to think; for the drill. */
  demoThinkMs: number;
  /** The pause between the demo turn's streamed chunks; for the drill. */
  demoChunkMs: number;
  /** AUTOHUB_DEMO_REPLY_CHARS: the demo turn's answer grows to this many characters (N, or MIN-MAX by the question); null: its short greeting. */
  demoReplyChars: { min: number; max: number } | null;
  /** AUTOHUB_DEMO_TICKET_URL: the demo turn files a "ticket" there (a POST) in a ctx.step after thinking; for the drill's frozen-step. null: no step. */
  demoTicketUrl: string | null;
  /**
   * AUTOHUB_TURN: the ES module with your bot's `takeTurn` (app/turn-module.ts
   * loads it), as given: relative to the project root, or absolute.
   * undefined: the demo turn (app/turn.ts).
   */
  turn: string | undefined;
  /** The catch-up sweep after an outage longer than Slack's retries; null when AUTOHUB_CATCHUP=off. */
  catchup: { maxMs: number; retryWindowMs: number; paceMs: number; everyMs: number } | null;
}

export const DEFAULT_REFUSAL_LOG = 'autohub-refusals.jsonl';

const INSTANCE = /^[A-Za-z0-9._-]{1,64}$/;

/** Upstash's console shows a redis:// URL too (for Redis clients); autohub speaks REST. Where to find the right one. */
const REST_URL =
  "the database's REST URL, https://<name>.upstash.io: in the Upstash console open the database, and copy UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN from its REST API section (not the redis:// URL)";

function readUpstash(env: Env, r: SettingsReader): UpstashSettings | null {
  const url = readRaw(env, 'UPSTASH_REDIS_REST_URL');
  const token = readRaw(env, 'UPSTASH_REDIS_REST_TOKEN');
  if (url === undefined && token === undefined) return null;
  const restUrl = r.take(() => {
    if (url !== undefined && /^rediss?:\/\//i.test(url)) throw new ConfigError('UPSTASH_REDIS_REST_URL', REST_URL, shownUrl(url));
    return readUrl(env, 'UPSTASH_REDIS_REST_URL', undefined, { expected: REST_URL });
  }, '');
  if (token === undefined)
    r.take(() => {
      throw new ConfigError('UPSTASH_REDIS_REST_TOKEN', 'the REST token of the database whose URL is set');
    }, undefined);
  return { url: restUrl, token: token ?? '' };
}

/**
 * The default name says which copy and nothing about the machine: the role
 * plus Railway's replica id when there is one (so replicas differ), else a
 * short random id.
 */
function defaultInstance(env: Env, role: Role): string {
  const replica = readRaw(env, 'RAILWAY_REPLICA_ID')
    ?.replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 8);
  return `${role}-${replica || randomBytes(3).toString('hex')}`;
}

function readInstance(env: Env, role: Role): string {
  const value = readRaw(env, 'AUTOHUB_INSTANCE');
  if (value === undefined) return defaultInstance(env, role);
  if (!INSTANCE.test(value)) {
    throw new ConfigError('AUTOHUB_INSTANCE', '1 to 64 letters, digits, dots, dashes or underscores', value);
  }
  return value;
}

function readLease(env: Env): AppConfig['lease'] {
  const leaseMs = readInt(env, 'AUTOHUB_LEASE_MS', 10_000, { min: 100, max: 600_000 });
  const renewMs = readInt(env, 'AUTOHUB_LEASE_RENEW_MS', Math.min(3_000, Math.floor(leaseMs / 3)), { min: 10, max: 600_000 });
  if (renewMs >= leaseMs) {
    throw new ConfigError('AUTOHUB_LEASE_RENEW_MS', `fewer milliseconds than AUTOHUB_LEASE_MS (${leaseMs}), a third of it is usual`, String(renewMs));
  }
  return { leaseMs, renewMs, reaperMs: readInt(env, 'AUTOHUB_REAPER_MS', 120_000, { min: 10, max: 3_600_000 }) };
}

const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;

function readOwners(env: Env): string[] {
  const value = readRaw(env, 'AUTOHUB_OWNER');
  if (value === undefined) return [];
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const bad = ids.find((id) => !SLACK_USER.test(id));
  if (bad !== undefined || ids.length === 0) {
    throw new ConfigError('AUTOHUB_OWNER', 'one or more Slack user ids separated by commas, e.g. U012ABCDEF', bad ?? value);
  }
  return ids;
}

/** A webhook's path or query holds its token: a bad value is shown by its origin, or its length, never whole. */
function readAlertUrl(env: Env): string | null {
  const value = readRaw(env, 'AUTOHUB_ALERT_URL');
  if (value === undefined) return null;
  const expected = 'an https:// (or http://) webhook URL that takes a JSON POST: a Slack incoming webhook, Discord, ntfy';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('AUTOHUB_ALERT_URL', expected, `${value.length} characters, not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('AUTOHUB_ALERT_URL', expected, `a ${url.protocol} URL`);
  if (url.username || url.password) throw new ConfigError('AUTOHUB_ALERT_URL', `${expected}, with no user or password in it`, url.origin);
  return url.toString();
}

function readAllowBots(env: Env): AllowBots {
  const allow = parseAllowBots(readRaw(env, 'AUTOHUB_ALLOW_BOTS'));
  if (typeof allow === 'object' && 'bad' in allow)
    throw new ConfigError('AUTOHUB_ALLOW_BOTS', "* or bot ids separated by commas, e.g. B012ABCDEF (a message's bot_id)", allow.bad);
  return allow;
}

function readPeer(env: Env): AppConfig['peer'] {
  if (readRaw(env, 'AUTOHUB_PEER_URL') === undefined) return null;
  return { url: readUrl(env, 'AUTOHUB_PEER_URL'), everyMs: readInt(env, 'AUTOHUB_PEER_CHECK_MS', 5_000, { min: 100, max: 600_000 }) };
}

/** Down to 1 s for drills and tests; 30 minutes costs about 290 store commands a day (docs/verify.md, docs/costs.md). */
const VERIFY_EVERY = { fallback: 30 * 60_000, min: 1_000, max: 86_400_000 };

function readLegs(env: Env): AppConfig['legs'] {
  const raw = readRaw(env, 'AUTOHUB_VERIFY_EVERY_MS');
  let everyMs = VERIFY_EVERY.fallback;
  if (raw !== undefined) {
    everyMs = Number(raw);
    if (!/^\d+$/.test(raw) || (everyMs !== 0 && (everyMs < VERIFY_EVERY.min || everyMs > VERIFY_EVERY.max))) {
      throw new ConfigError('AUTOHUB_VERIFY_EVERY_MS', `0 (off) or a whole number of milliseconds from ${VERIFY_EVERY.min} to ${VERIFY_EVERY.max}`, raw);
    }
  }
  if (readRaw(env, 'AUTOHUB_EDGE_URL') === undefined || everyMs === 0) return null;
  // The base, as `npm run verify -- --edge` takes it: a pasted `/slack/events` is dropped.
  const edgeUrl = readUrl(env, 'AUTOHUB_EDGE_URL')
    .replace(/\/+$/, '')
    .replace(/\/slack\/events$/, '');
  return { edgeUrl, everyMs };
}

function readHealthToken(env: Env): string | null {
  const value = readRaw(env, 'AUTOHUB_HEALTH_TOKEN');
  if (value === undefined) return null;
  if (value.length < 16) throw new ConfigError('AUTOHUB_HEALTH_TOKEN', 'at least 16 characters (e.g. `openssl rand -hex 16`)', `${value.length} characters`);
  return value;
}

/** A 32-byte key given as 64 hex digits or base64. */
function readKey(name: string, value: string): Buffer {
  const expected = '32 bytes as 64 hex digits or base64 (e.g. `openssl rand -hex 32`)';
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(value) ? Buffer.from(value, 'base64') : undefined;
  if (!key || key.length !== 32) throw new ConfigError(name, expected, `${value.length} characters`);
  return key;
}

/**
 * The keys stored bodies are sealed under: AUTOHUB_STORE_KEY, else one derived
 * from the signing secret; AUTOHUB_STORE_KEY_PREVIOUS (comma separated) still
 * opens what older keys sealed. null when neither key nor secret is set.
 */
function readSealKeys(env: Env): AppConfig['sealKeys'] {
  const given = readRaw(env, 'AUTOHUB_STORE_KEY');
  const secret = readRaw(env, 'SLACK_SIGNING_SECRET');
  const previous = (readRaw(env, 'AUTOHUB_STORE_KEY_PREVIOUS') ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => readKey('AUTOHUB_STORE_KEY_PREVIOUS', k));
  if (given !== undefined) return { current: readKey('AUTOHUB_STORE_KEY', given), previous, derived: false };
  if (secret !== undefined) return { current: deriveStoreKey(secret), previous, derived: true };
  return null;
}

/** The extensions a turn module may have: ES modules, and TypeScript (loaded through tsx). */
export const TURN_EXTENSIONS = ['.js', '.mjs', '.ts', '.mts'] as const;

function readTurnPath(env: Env): string | undefined {
  const value = readRaw(env, 'AUTOHUB_TURN');
  if (value === undefined) return undefined;
  if (!TURN_EXTENSIONS.some((ext) => value.endsWith(ext))) {
    throw new ConfigError('AUTOHUB_TURN', 'the path of an ES module that exports takeTurn, ending .js, .mjs or .ts (e.g. examples/echo.mjs)', value);
  }
  return value;
}

function readStore(env: Env, r: SettingsReader): Pick<AppConfig, 'upstash' | 'claim' | 'storeAttemptMs' | 'sealKeys'> {
  return {
    sealKeys: r.take(() => readSealKeys(env), null),
    upstash: readUpstash(env, r),
    claim: {
      attemptMs: r.take(() => readInt(env, 'AUTOHUB_CLAIM_ATTEMPT_MS', 450, { min: 50, max: 5000 }), 450),
      attempts: r.take(() => readInt(env, 'AUTOHUB_CLAIM_ATTEMPTS', 2, { min: 1, max: 5 }), 2),
    },
    storeAttemptMs: r.take(() => readInt(env, 'AUTOHUB_STORE_ATTEMPT_MS', DEFAULT_COMMAND_MS, { min: 50, max: 30_000 }), DEFAULT_COMMAND_MS),
  };
}

/** Only what reaching the shared store takes: for tools that read it without being a copy. Every bad setting named at once. */
export function parseStoreConfig(env: Env): Pick<AppConfig, 'upstash' | 'claim' | 'storeAttemptMs' | 'sealKeys'> {
  const r = new SettingsReader(env);
  const store = readStore(env, r);
  r.done();
  return store;
}

/** A bot token is shown by its prefix alone (`xoxp-...`), anything else by its length: never a credential's characters. */
function readBotToken(env: Env): string {
  const expected = 'a bot token starting with xoxb-';
  const token = readRequired(env, 'SLACK_BOT_TOKEN', expected);
  if (!token.startsWith('xoxb-'))
    throw new ConfigError('SLACK_BOT_TOKEN', expected, /^xox[a-z]-/.test(token) ? `${token.slice(0, 5)}...` : `${token.length} characters`);
  return token;
}

/** `N` or `MIN-MAX` characters, for the demo's long answers (the drill's slack-quirks). */
function readCharRange(env: Env, name: string): { min: number; max: number } | null {
  const raw = readRaw(env, name);
  if (raw === undefined) return null;
  const m = /^(\d+)(?:-(\d+))?$/.exec(raw);
  const min = m ? Number(m[1]) : NaN;
  const max = m ? Number(m[2] ?? m[1]) : NaN;
  if (!m || min < 1 || max < min || max > 200_000) throw new ConfigError(name, 'a length N or a range MIN-MAX of characters, 1 to 200000', raw);
  return { min, max };
}

/**
 * Every setting is read before anything is thrown: a start names all that are
 * bad or missing (a ConfigErrors), each with the form it should take.
 */
export function parseAppConfig(env: Env): AppConfig {
  const r = new SettingsReader(env);
  const take = r.take.bind(r);
  const role = take(() => readEnum<Role>(env, 'AUTOHUB_ROLE', ['hub', 'cloud']), 'hub');
  const botToken = take(() => readBotToken(env), '');
  const refusalLog = readRaw(env, 'AUTOHUB_REFUSAL_LOG') ?? DEFAULT_REFUSAL_LOG;
  const journal = readRaw(env, 'AUTOHUB_JOURNAL') ?? 'autohub-journal.jsonl';
  const int = (name: string, fallback: number, range: { min: number; max: number }) => take(() => readInt(env, name, fallback, range), fallback);
  const config: AppConfig = {
    role,
    port: int('PORT', 3000, { min: 0, max: 65535 }),
    instance: take(() => readInstance(env, role), `${role}-unnamed`),
    signingSecret: take(() => readRequired(env, 'SLACK_SIGNING_SECRET', "the app's signing secret from Basic Information"), ''),
    botToken,
    slackApiUrl: take(() => readUrl(env, 'SLACK_API_URL', 'https://slack.com/api/', { trailingSlash: true }), 'https://slack.com/api/'),
    ...readStore(env, r),
    refusalLog: refusalLog === 'off' ? null : refusalLog,
    journal: journal === 'off' ? null : journal,
    storeAllowance: int('AUTOHUB_UPSTASH_MONTHLY_COMMANDS', 500_000, { min: 0, max: 1_000_000_000_000 }),
    inboxMaxAgeMs: int('AUTOHUB_INBOX_MAX_HOURS', 24, { min: 1, max: 24 * 7 }) * 3_600_000,
    scheduleGraceMs: int('AUTOHUB_SCHEDULE_GRACE_MS', 30_000, { min: 0, max: 600_000 }),
    askWatchMs: int('AUTOHUB_ASK_WATCH_MS', 600_000, { min: 100, max: 3_600_000 }),
    rateLimit: {
      attempts: int('AUTOHUB_RATELIMIT_ATTEMPTS', 4, { min: 1, max: 20 }),
      budgetMs: int('AUTOHUB_RATELIMIT_BUDGET_MS', 120_000, { min: 0, max: 3_600_000 }),
    },
    drainMs: int('AUTOHUB_DRAIN_MS', 10_000, { min: 0, max: 120_000 }),
    lease: take(() => readLease(env), { leaseMs: 10_000, renewMs: 3_000, reaperMs: 120_000 }),
    retry: {
      attempts: int('AUTOHUB_TURN_ATTEMPTS', 4, { min: 1, max: 20 }),
      windowMs: int('AUTOHUB_TURN_RETRY_WINDOW_MS', 600_000, { min: 1_000, max: 86_400_000 }),
      firstDelayMs: int('AUTOHUB_TURN_RETRY_DELAY_MS', 2_000, { min: 0, max: 3_600_000 }),
      factor: 4,
    },
    maxTurns: int('AUTOHUB_MAX_TURNS', 16, { min: 1, max: 1000 }),
    // Only the hub hands work on: the cloud copy is the edge's last resort and takes whatever comes.
    shedAt: Math.min(int('AUTOHUB_SHED_AT', 0, { min: 0, max: 100_000 }), role === 'hub' ? Infinity : 0),
    owners: take(() => readOwners(env), []),
    alertUrl: take(() => readAlertUrl(env), null),
    telemetry: take(() => readTelemetry(env), null),
    allowBots: take(() => readAllowBots(env), new Set<string>()),
    peer: take(() => readPeer(env), null),
    healthToken: take(() => readHealthToken(env), null),
    legs: take(() => readLegs(env), null),
    maxBodyBytes: int('AUTOHUB_MAX_BODY_BYTES', 1_048_576, { min: 1024, max: 16_777_216 }),
    maxReplyChars: int('AUTOHUB_MAX_REPLY_CHARS', DEFAULT_MAX_REPLY_CHARS, { min: 500, max: 1_000_000 }),
    logLevel: take(() => readEnum<Level>(env, 'AUTOHUB_LOG_LEVEL', ['debug', 'info', 'warn', 'error'], 'info'), 'info'),
    demoThinkMs: int('AUTOHUB_DEMO_THINK_MS', 0, { min: 0, max: 600_000 }),
    demoChunkMs: int('AUTOHUB_DEMO_CHUNK_MS', 0, { min: 0, max: 600_000 }),
    demoReplyChars: take(() => readCharRange(env, 'AUTOHUB_DEMO_REPLY_CHARS'), null),
    demoTicketUrl: take(() => (readRaw(env, 'AUTOHUB_DEMO_TICKET_URL') === undefined ? null : readUrl(env, 'AUTOHUB_DEMO_TICKET_URL')), null),
    turn: take(() => readTurnPath(env), undefined),
    catchup:
      take(() => readEnum(env, 'AUTOHUB_CATCHUP', ['on', 'off'], 'on'), 'on') === 'off'
        ? null
        : {
            maxMs: int('AUTOHUB_CATCHUP_MAX_HOURS', 24, { min: 1, max: 24 }) * 3_600_000,
            // Slack's last retry comes about 5 minutes after the first attempt; 6 minutes leaves a margin.
            retryWindowMs: int('AUTOHUB_CATCHUP_RETRY_WINDOW_MS', 360_000, { min: 100, max: 3_600_000 }),
            paceMs: int('AUTOHUB_CATCHUP_PACE_MS', 1_200, { min: 0, max: 60_000 }),
            everyMs: int('AUTOHUB_CATCHUP_EVERY_MS', 900_000, { min: 100, max: 86_400_000 }),
          },
  };
  r.done();
  return config;
}

/** Every credential in a config, for the logger to mask wherever it appears. */
export function secretsOf(config: AppConfig): string[] {
  return [
    config.signingSecret,
    config.botToken,
    config.upstash?.token,
    config.healthToken,
    config.alertUrl,
    ...Object.values(config.telemetry?.headers ?? {}),
    config.sealKeys && !config.sealKeys.derived ? config.sealKeys.current.toString('hex') : undefined,
  ].filter((s): s is string => typeof s === 'string' && s.length > 0);
}
