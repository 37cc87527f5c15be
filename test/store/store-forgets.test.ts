/**
 * What only the Upstash store does when the store forgets: a restored body
 * is sealed as a claim's is, and a lost lease set costs its scan once (the
 * semantics both stores share are in contract.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RespClient } from '../../drill/sim/resp-client.js';
import { LEASES_KEY } from '../../lib/store/keys.js';
import { createSealer } from '../../lib/store/seal.js';
import { UpstashStore } from '../../lib/store/upstash-store.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;
const cloud = { instance: 'cloud-1', role: 'cloud' } as const;
let n = 0;
const key = () => `autohub:claim:T1:event:forget-${process.pid}-${++n}`;

const fx = useRedisBridge();
let redis: RespClient;
beforeAll(async () => {
  redis = await RespClient.open(fx.redis.port);
});
afterAll(() => redis?.close());

const sealer = createSealer(randomBytes(32));

it('the Upstash store seals a restored body as a claim does, and a takeover opens it: a restore never leaves a message in clear', async () => {
  const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, sealer });
  const k = key();
  await s.claim([k], hub, { leaseMs: 100, body: '{"text":"marker"}' });
  await redis.command(['DEL', k]);
  expect(await s.restore(k, 1, hub, { leaseMs: 100, body: '{"text":"marker"}' }, [])).toBe('ok');
  const raw = String(await redis.command(['GET', k]));
  expect(raw).not.toContain('marker');
  expect(JSON.parse(raw).body).toMatch(/^s1\./);
  // Its lease made to lapse in Redis itself (the scripts read Redis's clock): due a second ago.
  await redis.command(['ZADD', LEASES_KEY, Date.now() - 1000, k]);
  const taken = (await s.look(cloud, 60_000, 100))?.taken.filter((t) => t.key === k);
  expect(taken?.map((t) => t.body)).toEqual(['{"text":"marker"}']);
});

it('a lost lease set costs its scan once: after the rebuild, a look and a renewal that find everything in place are one command each', async () => {
  const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, sealer });
  const [a, b] = [key(), key()];
  await s.claim([a], hub, { leaseMs: 60_000, body: '{}' });
  await s.claim([b], hub, { leaseMs: 60_000, body: '{}' });
  // Redis knows the scripts already, as it does for a copy that has been running: what is counted is the commands, not a first upload.
  await s.renew([{ key: a, token: 1 }], 60_000);
  await s.look(cloud, 60_000, 0);
  await redis.command(['DEL', LEASES_KEY]);
  let before = fx.bridge.commands;
  expect((await s.look(cloud, 60_000, 0))?.reindexed).toBeGreaterThanOrEqual(2);
  // The look, a SCAN page, the page's reindex script (this database is small).
  expect(fx.bridge.commands - before).toBe(3);
  before = fx.bridge.commands;
  expect(
    await s.renew(
      [
        { key: a, token: 1 },
        { key: b, token: 1 },
      ],
      60_000,
    ),
  ).toEqual(['ok', 'ok']);
  expect(fx.bridge.commands - before).toBe(1);
  before = fx.bridge.commands;
  expect((await s.look(cloud, 60_000, 0))?.reindexed).toBe(0);
  expect(fx.bridge.commands - before).toBe(1);
});
