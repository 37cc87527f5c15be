/** A private redis-server and an Upstash REST bridge in front of it, per test file. */
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type PrivateRedis } from '../../drill/sim/redis-server.js';
import { startUpstashBridge, type UpstashBridge } from '../../drill/sim/upstash-bridge.js';

export interface RedisFixture {
  redis: PrivateRedis;
  bridge: UpstashBridge;
}

export function useRedisBridge(): RedisFixture {
  const fixture = {} as RedisFixture;
  beforeAll(async () => {
    fixture.redis = await startRedis();
    fixture.bridge = await startUpstashBridge({ redisPort: fixture.redis.port });
  });
  afterAll(async () => {
    await fixture.bridge?.close();
    await fixture.redis?.stop();
  });
  return fixture;
}
