/** Hub and cloud copies in this process: real Bolt, real receiver, real sockets. */
import { createAutohub, type Autohub } from '../../app/create-app.js';
import { eventKey, type SharedStore } from '../../lib/store/index.js';
import { parseAppConfig, secretsOf, type Role } from '../../lib/config/index.js';
import { createMemoryLogger } from '../../lib/log/index.js';
import type { StatusTimers } from '../../lib/turn/status.js';
import type { TakeTurn, TurnModule } from '../../lib/bot/index.js';

export const SECRET = 'test-signing-secret';
/** The copies' health token in tests: the full health body is shown only with it. */
export const HEALTH_TOKEN = 'test-health-token-0123456789';
export const HEALTH_AUTH = { authorization: `Bearer ${HEALTH_TOKEN}` };

export interface RunningCopy extends Autohub {
  url: string;
  eventsUrl: string;
  healthUrl: string;
  lines: ReturnType<typeof createMemoryLogger>['lines'];
}

export interface StartCopyOptions {
  role: Role;
  store?: SharedStore;
  webApiUrl: string;
  upstash?: { url: string; token: string };
  env?: Record<string, string>;
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  turn?: TakeTurn | TurnModule;
  /** How the thinking status waits for its refresh (a test's clock). */
  timers?: StatusTimers;
}

export async function startCopy(o: StartCopyOptions): Promise<RunningCopy> {
  const config = parseAppConfig({
    AUTOHUB_ROLE: o.role,
    AUTOHUB_INSTANCE: `${o.role}-test`,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_BOT_TOKEN: 'xoxb-test-token',
    SLACK_API_URL: o.webApiUrl,
    PORT: '0',
    AUTOHUB_REFUSAL_LOG: 'off',
    AUTOHUB_HEALTH_TOKEN: HEALTH_TOKEN,
    ...(o.upstash ? { UPSTASH_REDIS_REST_URL: o.upstash.url, UPSTASH_REDIS_REST_TOKEN: o.upstash.token } : {}),
    ...o.env,
  });
  const log = createMemoryLogger({ base: { instance: config.instance }, secrets: secretsOf(config) });
  const autohub = createAutohub({ config, log, store: o.store, fetch: o.fetch, now: o.now, sleep: o.sleep, turn: o.turn, timers: o.timers });
  await autohub.start();
  const url = `http://127.0.0.1:${autohub.receiver.port}`;
  return { ...autohub, url, eventsUrl: `${url}/slack/events`, healthUrl: `${url}/slack/health`, lines: log.lines };
}

/**
 * Wait until `check` holds (gives a truthy value), polling every 10 ms;
 * resolves with what it gave. The one wait of the tests: a test waits on
 * state, never on the clock. `timeoutMs` only ends a test that would
 * otherwise hang, with `what` in its error: no assertion.
 */
export async function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<Exclude<T, false | undefined | null | 0 | ''>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | undefined | null | 0 | ''>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The end of every turn's lifecycle: no copy runs or holds a turn, and the
 * store has no lease live or retry pending. Only then can "exactly one reply"
 * be read: a late second reply could only come from a turn that is still live.
 */
export async function quiescent(copies: readonly Pick<RunningCopy, 'runner' | 'keeper' | 'store'>[], timeoutMs = 20_000): Promise<void> {
  await eventually(
    async () => copies.every((c) => c.runner.inFlight === 0 && c.runner.queued === 0 && c.keeper.size === 0) && (await copies[0]!.store.pending()) === 0,
    'every turn to end',
    timeoutMs,
  );
}

/**
 * The replies posted to the fake Web API that answer `eventId` (by their message metadata): one entry per
 * reply, its first message (a long reply's later messages and a note to the person are not replies of their own).
 */
export function repliesTo<T extends { params: Record<string, string> }>(api: { posts(): T[] }, eventId: string): T[] {
  return api.posts().filter((c) => {
    const payload = JSON.parse(c.params.metadata ?? '{}').event_payload as { event_id?: unknown; part?: unknown; note?: unknown } | undefined;
    return payload?.event_id === eventId && payload.note !== true && (payload.part === undefined || payload.part === 0);
  });
}

/** Every message of the replies to `eventId`, notes included, in the order they were posted. */
export function messagesFor<T extends { params: Record<string, string> }>(api: { posts(): T[] }, eventId: string): T[] {
  return api.posts().filter((c) => JSON.parse(c.params.metadata ?? '{}').event_payload?.event_id === eventId);
}

/** The end of one event's lifecycle in the shared store: its record done (or dead) and no lease live or due anywhere. */
export async function turnOver(store: Pick<SharedStore, 'read' | 'pending'>, eventId: string, timeoutMs = 20_000): Promise<void> {
  const key = eventKey('T0AUTOHUB', eventId);
  await eventually(
    async () => {
      const state = (JSON.parse((await store.read(key)) ?? '{}') as { state?: string }).state;
      return (state === 'done' || state === 'dead') && (await store.pending()) === 0;
    },
    `the turn of ${eventId} to end`,
    timeoutMs,
  );
}
