/**
 * Per-file fixtures: each registers its own `beforeAll`/`afterAll` and returns
 * the thing it starts, usable in the file's tests as if it were already there.
 * Vitest runs `afterAll` hooks in reverse order, so a copy stops before the
 * fake Web API and the Redis it uses close.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startFakeWebApi, type FakeWebApi } from '../../drill/sim/fake-web-api.js';
import type { SharedStore } from '../../lib/store/index.js';
import type { TakeTurn, TurnModule } from '../../lib/turn/index.js';
import { startCopy, type RunningCopy } from './copies.js';
import { resetFakeCopy, startFakeCopy, type FakeCopy } from './fake-copy.js';
import type { RedisFixture } from './redis-fixture.js';

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

/** The fake Slack Web API for this file (drill/sim/fake-web-api.ts): started before its tests, closed after. */
export function useFakeWebApi(options: Parameters<typeof startFakeWebApi>[0] = {}): FakeWebApi {
  const api = startedLater<FakeWebApi>('the fake Web API');
  let started: FakeWebApi | undefined;
  beforeAll(async () => {
    started = await startFakeWebApi(options);
    api.set(started);
  });
  afterAll(async () => {
    await started?.close();
  });
  return api.value;
}

export interface CopyFixtureOptions {
  role: 'hub' | 'cloud';
  /** The fake Web API it calls (from useFakeWebApi). */
  api: FakeWebApi;
  /** The shared store: Upstash over this file's Redis bridge; without it, the copy's in-process store. */
  redis?: RedisFixture;
  /** A store of the test's own (instead of `redis`), or a function giving it when the copy starts. */
  store?: SharedStore | (() => SharedStore);
  env?: Record<string, string>;
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  turn?: TakeTurn | TurnModule;
  /** The bot as a module loaded when the copy starts (in the hook). */
  loadTurn?: () => Promise<TurnModule>;
}

/** One copy in this process (real Bolt, real receiver, a real socket) for this file: started before its tests, stopped after. */
export function useCopy(o: CopyFixtureOptions): RunningCopy {
  const copy = startedLater<RunningCopy>(`the ${o.role} copy`);
  let started: RunningCopy | undefined;
  beforeAll(async () => {
    const { api, redis, turn, loadTurn, store, ...rest } = o;
    const resolved = turn ?? (await loadTurn?.());
    started = await startCopy({
      ...rest,
      ...(store ? { store: typeof store === 'function' ? store() : store } : {}),
      webApiUrl: api.url,
      ...(redis ? { upstash: { url: redis.bridge.url, token: redis.bridge.token } } : {}),
      ...(resolved ? { turn: resolved } : {}),
    });
    copy.set(started);
  });
  afterAll(async () => {
    await started?.stop();
  });
  return copy.value;
}

/**
 * A loopback hub and cloud copy for the edge's tests (test/support/fake-copy.ts): started before the
 * file's tests, set back to answering 200 and emptied of what they received after each, closed after all.
 */
export function useFakeCopies(): { hub: FakeCopy; cloud: FakeCopy } {
  const hub = startedLater<FakeCopy>('the fake hub');
  const cloud = startedLater<FakeCopy>('the fake cloud copy');
  const started: FakeCopy[] = [];
  beforeAll(async () => {
    const [h, c] = await Promise.all([startFakeCopy('hub'), startFakeCopy('cloud')]);
    started.push(h, c);
    hub.set(h);
    cloud.set(c);
  });
  afterEach(() => {
    for (const c of started) resetFakeCopy(c);
  });
  afterAll(async () => {
    await Promise.all(started.map((c) => c.close()));
  });
  return { hub: hub.value, cloud: cloud.value };
}
