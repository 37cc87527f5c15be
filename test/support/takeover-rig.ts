/**
 * The rig for tests where the hub dies mid-turn: a fake Web API, the cloud
 * copy in this process on a real Redis (short leases), and the hub as a child
 * process the test can kill, freeze or restart; killed after each test.
 */
import { afterEach } from 'vitest';
import type { FakeWebApi } from '../../drill/sim/fake-web-api.js';
import type { TurnModule } from '../../lib/turn/index.js';
import { SHORT_LEASE, spawnHub, type ChildApp } from './child-app.js';
import { SECRET, type RunningCopy } from './copies.js';
import { useCopy, useFakeWebApi } from './fixtures.js';
import { useRedisBridge, type RedisFixture } from './redis-fixture.js';

export interface TakeoverRig {
  readonly fx: RedisFixture;
  readonly api: FakeWebApi;
  readonly cloud: RunningCopy;
  /** The hub as a child process, on the same store and Web API; killed after the test. */
  startHub(env?: Record<string, string>): Promise<ChildApp>;
}

export function useTakeoverRig(options: { afterEach?: (api: FakeWebApi) => void; turn?: () => Promise<TurnModule> } = {}): TakeoverRig {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env: SHORT_LEASE, ...(options.turn ? { loadTurn: options.turn } : {}) });
  let hub: ChildApp | undefined;
  afterEach(() => {
    hub?.child.kill('SIGKILL');
    hub = undefined;
    options.afterEach?.(api);
  });
  return {
    fx,
    api,
    cloud,
    startHub: async (env = {}) => {
      hub = await spawnHub({ webApiUrl: api.url, upstash: fx.bridge, secret: SECRET }, env);
      return hub;
    },
  };
}
