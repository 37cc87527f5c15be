/**
 * Per-file fixtures: each registers its own `beforeAll`/`afterAll` and returns
 * the thing it starts, usable in the file's tests as if it were already there.
 * Vitest runs `afterAll` hooks in reverse order, so a copy stops before the
 * fake Web API and the Redis it uses close.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startFakeWebApi, type FakeWebApi } from '../../drill/sim/fake-web-api.js';
import type { SharedStore } from '../../lib/store/index.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { startCopy, type RunningCopy, type StartCopyOptions } from './copies.js';
import { resetFakeCopy, startFakeCopy, type FakeCopy } from './fake-copy.js';
import type { RedisFixture } from './redis-fixture.js';
import { startResponseUrl, type ResponseUrl } from './response-url.js';

/**
 * A stand-in for what `beforeAll` will start: every property read, write and
 * call goes to it, and reaching it before the hook ran says so by name
 * (instead of "cannot read properties of undefined").
 */
export function startedLater<T extends object>(what: string): { value: T; set(value: T | undefined): void } {
  let current: T | undefined;
  const target = (): T => {
    if (current === undefined) throw new Error(`${what} is used before its beforeAll started it`);
    return current;
  };
  const value = new Proxy({} as T, {
    get: (_, prop) => {
      const t = target();
      const v = Reflect.get(t, prop, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
    set: (_, prop, v) => Reflect.set(target(), prop, v),
    has: (_, prop) => Reflect.has(target(), prop),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, prop) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), prop);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  return {
    value,
    set: (v) => {
      current = v;
    },
  };
}

/**
 * What `start` resolves to, started by `before` and stopped by `after` (the
 * file's or each test's hooks), usable from where it is declared.
 */
function useStarted<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
  hooks: { before: typeof beforeAll; after: typeof afterAll } = { before: beforeAll, after: afterAll },
): T {
  const later = startedLater<T>(what);
  let started: T | undefined;
  hooks.before(async () => {
    started = await start();
    later.set(started);
  });
  hooks.after(async () => {
    const was = started;
    started = undefined;
    if (was) await stop(was);
  });
  return later.value;
}

/** The fake Slack Web API for this file (drill/sim/fake-web-api.ts): started before its tests, closed after. */
export function useFakeWebApi(options: Parameters<typeof startFakeWebApi>[0] = {}): FakeWebApi {
  return useStarted(
    'the fake Web API',
    () => startFakeWebApi(options),
    (api) => api.close(),
  );
}

/** startCopy's options, with the fake Web API, the store and the bot given as this file's fixtures. */
export interface CopyFixtureOptions extends Pick<StartCopyOptions, 'env' | 'fetch' | 'now' | 'sleep' | 'turn' | 'timers'> {
  role: 'hub' | 'cloud';
  /** The fake Web API it calls (from useFakeWebApi). */
  api: FakeWebApi;
  /** The shared store: Upstash over this file's Redis bridge; without it, the copy's in-process store. */
  redis?: RedisFixture;
  /** A store of the test's own (instead of `redis`), or a function giving it when the copy starts. */
  store?: SharedStore | (() => SharedStore);
  /** The bot as a module loaded when the copy starts (in the hook). */
  loadTurn?: () => Promise<TurnModule>;
}

/** One copy in this process (real Bolt, real receiver, a real socket) for this file: started before its tests, stopped after. */
export function useCopy(o: CopyFixtureOptions): RunningCopy {
  return useStarted(
    `the ${o.role} copy`,
    async () => {
      const { api, redis, turn, loadTurn, store, ...rest } = o;
      const resolved = turn ?? (await loadTurn?.());
      return startCopy({
        ...rest,
        ...(store ? { store: typeof store === 'function' ? store() : store } : {}),
        webApiUrl: api.url,
        ...(redis ? { upstash: { url: redis.bridge.url, token: redis.bridge.token } } : {}),
        ...(resolved ? { turn: resolved } : {}),
      });
    },
    (copy) => copy.stop(),
  );
}

/**
 * A fresh fake Web API for each test of this file: started before each test,
 * closed after. For tests that read back all of Slack's history (the catch-up
 * sweep), where one test's messages would be found by the next.
 */
export function useFakeWebApiPerTest(options: Parameters<typeof startFakeWebApi>[0] = {}): FakeWebApi {
  return useStarted(
    'the fake Web API',
    () => startFakeWebApi(options),
    (api) => api.close(),
    { before: beforeEach, after: afterEach },
  );
}

/** A response_url on loopback (test/support/response-url.ts) for this file: started before its tests, closed after. */
export function useResponseUrl(): ResponseUrl {
  return useStarted('the response_url', startResponseUrl, async (hook) => {
    hook.server.close();
  });
}

/** A loopback stand-in for a copy (test/support/fake-copy.ts) for this file: started before its tests, closed after. */
export function useFakeCopy(name: string): FakeCopy {
  return useStarted(
    `the fake ${name} copy`,
    () => startFakeCopy(name),
    (copy) => copy.close(),
  );
}

export interface CopiesPerTest {
  /** Start a copy on this file's fake Web API and Redis (`env` on top of the file's); it is stopped after the test. */
  start(role: 'hub' | 'cloud', o?: { env?: Record<string, string>; now?: () => number; turn?: TurnModule }): Promise<RunningCopy>;
  /** Stop every copy this test started so far (both copies down). */
  stopAll(): Promise<void>;
}

/** Copies each test starts for itself, when it needs them (after an outage, with a clock of its own): stopped after each test. */
export function useCopiesPerTest(o: { api: FakeWebApi; redis: RedisFixture; env?: Record<string, string> }): CopiesPerTest {
  const running: RunningCopy[] = [];
  const stopAll = async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()));
  };
  afterEach(stopAll);
  return {
    start: async (role, extra = {}) => {
      const upstash = { url: o.redis.bridge.url, token: o.redis.bridge.token };
      const copy = await startCopy({
        role,
        webApiUrl: o.api.url,
        upstash,
        env: { ...o.env, ...extra.env },
        ...(extra.now ? { now: extra.now } : {}),
        ...(extra.turn ? { turn: extra.turn } : {}),
      });
      running.push(copy);
      return copy;
    },
    stopAll,
  };
}

/**
 * A loopback hub and cloud copy for the edge's tests (test/support/fake-copy.ts): started before the
 * file's tests, set back to answering 200 and emptied of what they received after each, closed after all.
 */
export function useFakeCopies(): { hub: FakeCopy; cloud: FakeCopy } {
  const hub = useFakeCopy('hub');
  const cloud = useFakeCopy('cloud');
  afterEach(() => {
    resetFakeCopy(hub);
    resetFakeCopy(cloud);
  });
  return { hub, cloud };
}
