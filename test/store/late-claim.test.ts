/**
 * A leased claim that timed out at its copy but landed in Redis after all,
 * on the Upstash store (what confirm answers, on both stores, is in
 * contract.test.ts).
 */
import { expect, it } from 'vitest';
import { RespClient } from '../../drill/sim/resp-client.js';
import { UpstashStore } from '../../lib/store/upstash-store.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;
const fx = useRedisBridge();

it('a leased claim that timed out while Redis was stopped lands when it resumes; the fail-open outcome carries its nonce, and confirm says it is mine', async () => {
  // The bug: the copy had no way to ask about a claim whose answer it never got, so a turn it ran fail-open was left to be taken over: two replies.
  const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {} });
  const k = `autohub:claim:T1:event:late-${process.pid}`;
  // Redis knows the claim script already (the copy's earlier claims), so the late write is the script itself.
  expect((await s.claim([`${k}-warm`], hub)).kind).toBe('claimed');
  fx.redis.pause();
  let outcome: Awaited<ReturnType<typeof s.claim>>;
  try {
    outcome = await s.claim([k], hub, { leaseMs: 60_000, body: '{}' });
  } finally {
    fx.redis.resume();
  }
  expect(outcome).toMatchObject({ kind: 'fail-open', nonce: expect.any(String) });
  // The write sat in Redis's socket while it was stopped: asked until it is there (a bounded number of round trips, no sleep).
  const redis = await RespClient.open(fx.redis.port);
  try {
    for (let i = 0; (await redis.command(['EXISTS', k])) !== 1; i++) if (i > 100) throw new Error('the late claim never landed');
  } finally {
    redis.close();
  }
  expect(await s.confirm(k, (outcome as { nonce: string }).nonce, 60_000)).toBe('mine');
});
