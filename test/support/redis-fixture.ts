/** A private redis-server and an Upstash REST bridge in front of it, per test file. */
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type PrivateRedis } from '../../drill/sim/redis-server.js';
import { RespClient } from '../../drill/sim/resp-client.js';
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

/** Straight to the fixture's redis-server (no bridge, never slowed): what the store holds, read as it is. */
export interface RedisReader {
  command(args: readonly (string | number)[]): Promise<unknown>;
}

/** A RESP client of `fx`'s redis-server for the file's tests: opened after `fx` starts, closed before it stops. */
export function useRedisReader(fx: RedisFixture): RedisReader {
  let client: RespClient | undefined;
  beforeAll(async () => {
    client = await RespClient.open(fx.redis.port);
  });
  afterAll(() => {
    client?.close();
  });
  return {
    command: (args) => {
      if (!client) throw new Error('useRedisReader: read before the file began');
      return client.command(args);
    },
  };
}
