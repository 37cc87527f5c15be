import { describe, expect, it } from 'vitest';
import { Redis } from '@upstash/redis';
import {
  CLAIM_SCRIPT,
  claimDeadlineMs,
  classifyClaimReply,
  createUpstashClient,
  type ClaimOwner,
  type StoreFault,
  UpstashStore,
} from '../../lib/store/index.js';

import type { BridgeMode } from '../../drill/sim/upstash-bridge.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const hub: ClaimOwner = { instance: 'hub-test', role: 'hub' };
const cloud: ClaimOwner = { instance: 'cloud-test', role: 'cloud' };
let counter = 0;
const uniqueKey = (label: string) => `autohub:claim:T1:event:${label}-${process.pid}-${++counter}`;

describe('UpstashStore against a real Redis through the REST bridge', () => {
  const fx = useRedisBridge();
  const faults: StoreFault[] = [];
  const store = (reporter: (f: StoreFault) => void = (f) => void faults.push(f), budget?: { attemptMs: number }) =>
    new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter, ...(budget ? { budget } : {}) });

  it('the first claim of a key is claimed and the second is a duplicate', async () => {
    const s = store();
    const key = uniqueKey('first');
    expect(await s.claim([key], hub)).toEqual({ kind: 'claimed' });
    expect(await s.claim([key], cloud)).toEqual({ kind: 'duplicate' });
  });

  it('stores who claimed the delivery, when, and a TTL of at least an hour', async () => {
    const { RespClient } = await import('../../drill/sim/resp-client.js');
    const key = uniqueKey('record');
    await store().claim([key], hub);
    const redis = await RespClient.open(fx.redis.port);
    try {
      const value = JSON.parse(String(await redis.command(['GET', key])));
      expect(value).toMatchObject({ instance: 'hub-test', role: 'hub' });
      expect(Date.parse(value.at)).toBeGreaterThan(Date.now() - 60_000);
      expect(Number(await redis.command(['TTL', key]))).toBeGreaterThanOrEqual(3600);
    } finally {
      redis.close();
    }
  });

  it('a message claimed under one event id is a duplicate under another', async () => {
    const s = store();
    const alias = uniqueKey('message-alias');
    expect((await s.claim([uniqueKey('ev-a'), alias], hub)).kind).toBe('claimed');
    expect((await s.claim([uniqueKey('ev-b'), alias], cloud)).kind).toBe('duplicate');
  });

  it('50 concurrent claims of one key from two clients give one claim and 49 duplicates', async () => {
    const a = store();
    const b = store();
    const key = uniqueKey('race');
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).claim([key], i % 2 ? hub : cloud)));
    const kinds = outcomes.map((o) => o.kind);
    expect(kinds.filter((k) => k === 'claimed')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'duplicate')).toHaveLength(49);
  });

  it('a retry whose first write landed but lost its reply is still our claim, not a duplicate', async () => {
    const s = store();
    const key = uniqueKey('lost-reply');
    fx.bridge.dropReplies = 1;
    expect(await s.claim([key], hub)).toEqual({ kind: 'claimed' });
    expect(await s.claim([key], cloud)).toEqual({ kind: 'duplicate' });
  });

  describe('seed 003 regressions', () => {
    it('an "Aborted" reply fails open and is never a duplicate', async () => {
      const seen: StoreFault[] = [];
      const s = store((f) => seen.push(f));
      fx.bridge.mode = 'aborted';
      try {
        const outcome = await s.claim([uniqueKey('aborted')], hub);
        expect(outcome.kind).toBe('fail-open');
        expect(seen[0]).toMatchObject({ op: 'claim', reason: expect.stringMatching(/unexpected claim reply/) });
      } finally {
        fx.bridge.mode = 'normal';
      }
    });

    it('a {"result":{}} reply (decoded to nothing) fails open: a first delivery is never dropped as a duplicate', async () => {
      const s = store(() => {});
      fx.bridge.mode = 'empty-object';
      try {
        expect((await s.claim([uniqueKey('empty')], hub)).kind).toBe('fail-open');
      } finally {
        fx.bridge.mode = 'normal';
      }
    });
  });

  describe('the claim script reads right under either reading of the base64 rule', () => {
    // The SDK's default client asks for base64 and decodes every string in an array.
    const sdkDefault = () => new Redis({ url: fx.bridge.url, token: fx.bridge.token, enableAutoPipelining: false, automaticDeserialization: false });
    it.each(['encoded', 'plain'] as const)('OK %s inside arrays: a first claim is claimed, a second a duplicate', async (okEncoding) => {
      fx.bridge.okEncoding = okEncoding;
      try {
        for (const client of [sdkDefault(), createUpstashClient({ url: fx.bridge.url, token: fx.bridge.token }, 1000)]) {
          const key = uniqueKey(`b64-${okEncoding}`);
          const run = () =>
            client.eval(CLAIM_SCRIPT, [key, 'autohub:leases', 'autohub:ratelimit', 'autohub:served', 'autohub:gaps'], ['{"nonce":"n1"}', '{}', 60, 0, 'n1']);
          expect(classifyClaimReply(await run(), undefined).outcome.kind).toBe('claimed');
          expect(classifyClaimReply(await run(), undefined).outcome.kind).toBe('claimed');
          const other = () =>
            client.eval(CLAIM_SCRIPT, [key, 'autohub:leases', 'autohub:ratelimit', 'autohub:served', 'autohub:gaps'], ['{"nonce":"n2"}', '{}', 60, 0, 'n2']);
          expect(classifyClaimReply(await other(), undefined).outcome.kind).toBe('duplicate');
        }
      } finally {
        fx.bridge.okEncoding = 'encoded';
      }
    });
  });

  describe('every fault fails open within the budget', () => {
    const deadline = claimDeadlineMs({ attemptMs: 450, attempts: 2, backoffMs: 50 });
    const modes: BridgeMode[] = ['hang', 'hang-after-headers', 'refuse', 'error-500', 'aborted', 'empty-object', 'garbage'];

    it.each(modes)('bridge mode %s', async (mode) => {
      const seen: StoreFault[] = [];
      const s = store((f) => seen.push(f));
      fx.bridge.mode = mode;
      const started = performance.now();
      try {
        const outcome = await s.claim([uniqueKey(mode)], hub);
        const elapsed = performance.now() - started;
        expect(outcome.kind).toBe('fail-open');
        expect(elapsed).toBeLessThan(deadline + 500);
        expect(seen.map((f) => f.op)).toEqual(['claim']);
      } finally {
        fx.bridge.mode = 'normal';
      }
    });

    it.each(modes)('bridge mode %s on a two-key claim', async (mode) => {
      const s = store(() => {});
      fx.bridge.mode = mode;
      try {
        const outcome = await s.claim([uniqueKey(`${mode}-a`), uniqueKey(`${mode}-b`)], hub);
        expect(outcome.kind).toBe('fail-open');
      } finally {
        fx.bridge.mode = 'normal';
      }
    });

    it('a paused Redis (SIGSTOP) fails open within the budget, and claims work again after', async () => {
      const s = store(() => {});
      fx.redis.pause();
      const started = performance.now();
      try {
        const outcome = await s.claim([uniqueKey('paused')], hub);
        expect(outcome.kind).toBe('fail-open');
        expect(performance.now() - started).toBeLessThan(deadline + 500);
      } finally {
        fx.redis.resume();
      }
      expect((await s.claim([uniqueKey('after-pause')], hub)).kind).toBe('claimed');
    });

    it('a bridge nobody listens on fails open', async () => {
      const s = new UpstashStore({ settings: { url: 'http://127.0.0.1:9', token: 't' }, reporter: () => {} });
      expect((await s.claim([uniqueKey('closed-port')], hub)).kind).toBe('fail-open');
      expect((await s.ping()).ok).toBe(false);
    });
  });

  describe('bookkeeping writes', () => {
    it('a note lands in Redis and resolves', async () => {
      const s = store();
      const key = uniqueKey('note');
      await s.note(key, 'served-by-hub', 60);
      expect(await s.read(key)).toBe('served-by-hub');
    });

    it('a note against a hung store is reported and never throws', async () => {
      const seen: StoreFault[] = [];
      const s = store((f) => seen.push(f));
      fx.bridge.mode = 'hang';
      try {
        await expect(s.note(uniqueKey('note-hang'), 'x', 60)).resolves.toBeUndefined();
        expect(seen).toEqual([expect.objectContaining({ op: 'note', reason: expect.stringMatching(/timeout|deadline/) })]);
      } finally {
        fx.bridge.mode = 'normal';
      }
    });

    it("a lock taken while Redis was paused lands late and is still its holder's: nobody else gets it, the holder does", async () => {
      const { RespClient } = await import('../../drill/sim/resp-client.js');
      const s = store(() => {});
      const key = uniqueKey('lock');
      // Redis knows the script already (a copy's earlier sweeps), so the late take is the script itself.
      expect(await s.lock(uniqueKey('lock-warm'), 1, 'hub-test:1')).toBe(true);
      fx.redis.pause();
      try {
        // No answer within the budget: the take is unknown, but it sits in Redis's socket.
        expect(await s.lock(key, 120, 'hub-test:1')).toBeUndefined();
      } finally {
        fx.redis.resume();
      }
      const redis = await RespClient.open(fx.redis.port);
      try {
        for (let i = 0; (await redis.command(['GET', key])) !== 'hub-test:1'; i++) {
          if (i > 200) throw new Error('the late take never landed');
          await new Promise((r) => setTimeout(r, 10));
        }
      } finally {
        redis.close();
      }
      expect(await s.lock(key, 120, 'cloud-test:1')).toBe(false);
      expect(await s.lock(key, 120, 'hub-test:1')).toBe(true);
      await s.unlock(key, 'cloud-test:1');
      expect(await s.lock(key, 120, 'cloud-test:1')).toBe(false);
      await s.unlock(key, 'hub-test:1');
      expect(await s.lock(key, 120, 'cloud-test:1')).toBe(true);
    });

    it('each request gets a fuse of its own: one shared across requests would abort the second of two slow writes', async () => {
      const seen: StoreFault[] = [];
      // Each write takes 600 ms of a 1,000 ms fuse; the second starts when the first ends, so a
      // fuse made once (a static signal) would fire 400 ms into it.
      const s = store((f) => seen.push(f), { attemptMs: 1000 });
      fx.bridge.delayMs = 600;
      try {
        await s.note(uniqueKey('slow-1'), 'a', 60);
        const key = uniqueKey('slow-2');
        await s.note(key, 'b', 60);
        expect(seen).toEqual([]);
        fx.bridge.delayMs = 0;
        expect(await s.read(key)).toBe('b');
      } finally {
        fx.bridge.delayMs = 0;
      }
    });
  });

  it('ping answers ok against a live Redis and not ok against a hung one', async () => {
    const s = store(() => {});
    expect(await s.ping()).toEqual({ ok: true });
    fx.bridge.mode = 'hang';
    try {
      expect((await s.ping()).ok).toBe(false);
    } finally {
      fx.bridge.mode = 'normal';
    }
  });
});

describe('a private Redis that is killed', () => {
  const fx = useRedisBridge();

  it('fails every claim open within the budget, and the store reports itself unhealthy', async () => {
    const seen: StoreFault[] = [];
    const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: (f) => void seen.push(f) });
    expect((await s.claim([uniqueKey('before-kill')], hub)).kind).toBe('claimed');
    await fx.redis.stop();
    const started = performance.now();
    const outcome = await s.claim([uniqueKey('after-kill')], hub);
    expect(outcome.kind).toBe('fail-open');
    expect(performance.now() - started).toBeLessThan(claimDeadlineMs({ attemptMs: 450, attempts: 2, backoffMs: 50 }) + 500);
    expect(seen.at(-1)).toMatchObject({ op: 'claim', reason: expect.stringMatching(/redis unreachable|UpstashError/) });
    expect((await s.ping()).ok).toBe(false);
  });
});
