/**
 * The rig for tests where the hub dies mid-turn: a fake Web API, the cloud
 * copy in this process on a real Redis (short leases), and the hub as a child
 * process the test can kill, freeze or restart; killed after each test.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startFakeWebApi, type FakeWebApi } from '../../drill/sim/fake-web-api.js';
import { SHORT_LEASE, spawnHub, type ChildApp } from './child-app.js';
import { SECRET, startCopy, type RunningCopy } from './copies.js';
import { useRedisBridge, type RedisFixture } from './redis-fixture.js';
import type { TurnModule } from '../../lib/turn/index.js';

export interface TakeoverRig {
  readonly fx: RedisFixture;
  readonly api: FakeWebApi;
  readonly cloud: RunningCopy;
  /** The hub as a child process, on the same store and Web API; killed after the test. */
  startHub(env?: Record<string, string>): Promise<ChildApp>;
}

export function useTakeoverRig(options: { afterEach?: (api: FakeWebApi) => void; turn?: () => Promise<TurnModule> } = {}): TakeoverRig {
  const fx = useRedisBridge();
  let api: FakeWebApi;
  let cloud: RunningCopy;
  let hub: ChildApp | undefined;
  beforeAll(async () => {
    api = await startFakeWebApi();
    const turn = await options.turn?.();
    cloud = await startCopy({
      role: 'cloud',
      webApiUrl: api.url,
      upstash: { url: fx.bridge.url, token: fx.bridge.token },
      env: SHORT_LEASE,
      ...(turn ? { turn } : {}),
    });
  });
  afterEach(() => {
    hub?.child.kill('SIGKILL');
    hub = undefined;
    options.afterEach?.(api);
  });
  afterAll(async () => {
    await cloud?.stop();
    await api?.close();
  });
  return {
    fx,
    get api() {
      return api;
    },
    get cloud() {
      return cloud;
    },
    startHub: async (env = {}) => {
      hub = await spawnHub({ webApiUrl: api.url, upstash: fx.bridge, secret: SECRET }, env);
      return hub;
    },
  };
}
