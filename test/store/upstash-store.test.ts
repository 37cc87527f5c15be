/**
 * What only the Upstash store does: its REST transport's faults, the claim
 * script's reply under either base64 reading, a reply lost after its write
 * landed, a request's own fuse. The semantics both stores share are in
 * contract.test.ts. No test here measures elapsed time: a fault is shown to
 * stay within the budget by the attempts the bridge saw and the fuse that fired.
 */
import { describe, expect, it } from 'vitest';
import { Redis } from '@upstash/redis';
import type { BridgeMode } from '../../drill/sim/upstash-bridge.js';
import { claimDeadlineMs, DEFAULT_CLAIM_BUDGET } from '../../lib/store/budget.js';
import { GAPS_KEY, LEASES_KEY, SERVED_KEY, WINDOWS_KEY } from '../../lib/store/keys.js';
import { DEFAULT_RETRY } from '../../lib/store/lease.js';
import { classifyClaimReply } from '../../lib/store/outcome.js';
import type { ClaimOwner } from '../../lib/store/record.js';
import type { StoreFault } from '../../lib/store/reporter.js';
import { CLAIM_SCRIPT } from '../../lib/store/scripts.js';
import { createUpstashClient } from '../../lib/store/upstash-client.js';
import { UpstashStore } from '../../lib/store/upstash-store.js';
import { eventually } from '../support/copies.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const hub: ClaimOwner = { instance: 'hub-test', role: 'hub' };
const cloud: ClaimOwner = { instance: 'cloud-test', role: 'cloud' };
let counter = 0;
const uniqueKey = (label: string) => `autohub:claim:T1:event:${label}-${process.pid}-${++counter}`;

describe('UpstashStore against a real Redis through the REST bridge', () => {
  const fx = useRedisBridge();
  const faults: StoreFault[] = [];
  const store = (reporter: (f: StoreFault) => void = (f) => void faults.push(f), budget?: { attemptMs: number }, commandMs?: number) =>
    new UpstashStore({
      settings: { url: fx.bridge.url, token: fx.bridge.token },
      reporter,
      ...(budget ? { budget } : {}),
      ...(commandMs !== undefined ? { commandMs } : {}),
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
          const claimBy = (nonce: string) => {
            const { keys, args } = CLAIM_SCRIPT.layout({
              keys: { leases: LEASES_KEY, windows: WINDOWS_KEY, servedMark: SERVED_KEY, gapList: GAPS_KEY },
              restKeys: [key],
              args: { primaryRecord: `{"nonce":"${nonce}"}`, aliasRecord: '{}', ttl: 60, leaseMs: 0, nonce, gapMs: 0, inOrder: '0', firstLook: '0' },
            });
            return client.eval(CLAIM_SCRIPT.source, keys, args);
          };
          const run = () => claimBy('n1');
          expect(classifyClaimReply(await run(), undefined).outcome.kind).toBe('claimed');
          expect(classifyClaimReply(await run(), undefined).outcome.kind).toBe('claimed');
          const other = () => claimBy('n2');
          expect(classifyClaimReply(await other(), undefined).outcome.kind).toBe('duplicate');
        }
      } finally {
        fx.bridge.okEncoding = 'encoded';
      }
    });
  });

  describe('every fault fails open within the budget', () => {
    const budget = DEFAULT_CLAIM_BUDGET;
    const deadline = claimDeadlineMs(budget);
    /** What the fuse or the store's deadline says when one of them, set from the budget, ended the claim. */
    const budgetFired = new RegExp(`no answer within (${budget.attemptMs}|${deadline}) ms`);
    const modes: BridgeMode[] = ['hang', 'hang-after-headers', 'refuse', 'error-500', 'aborted', 'empty-object', 'garbage'];
    const hangs: BridgeMode[] = ['hang', 'hang-after-headers'];

    it.each(modes)('bridge mode %s: fails open, reported once, in no more requests than the budget has attempts', async (mode) => {
      // The bug: a fault that was retried without end, or waited on a fuse other than the budget's, held the ack past Slack's 3 s.
      const seen: StoreFault[] = [];
      const s = store((f) => seen.push(f));
      fx.bridge.mode = mode;
      const before = fx.bridge.requests;
      try {
        const outcome = await s.claim([uniqueKey(mode)], hub);
        expect(outcome.kind).toBe('fail-open');
        expect(seen.map((f) => f.op)).toEqual(['claim']);
        expect(fx.bridge.requests - before).toBeGreaterThanOrEqual(1);
        expect(fx.bridge.requests - before).toBeLessThanOrEqual(budget.attempts);
        if (hangs.includes(mode)) expect(seen[0]!.reason).toMatch(budgetFired);
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

    it("a paused Redis (SIGSTOP) fails open on the budget's own fuse, and claims work again after", async () => {
      const seen: StoreFault[] = [];
      const s = store((f) => seen.push(f));
      fx.redis.pause();
      const before = fx.bridge.requests;
      try {
        const outcome = await s.claim([uniqueKey('paused')], hub);
        expect(outcome.kind).toBe('fail-open');
        expect(seen).toEqual([expect.objectContaining({ op: 'claim', reason: expect.stringMatching(budgetFired) })]);
        expect(fx.bridge.requests - before).toBeLessThanOrEqual(budget.attempts);
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
        await eventually(async () => (await redis.command(['GET', key])) === 'hub-test:1', 'the late take to land');
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
      const s = store((f) => seen.push(f), undefined, 1000);
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

  it('with round trips of 500 ms, past the claim fuse of 450 ms, the claim fails open and every other command still answers on its own fuse', async () => {
    // The bug: every command was sent with the claim's fuse, so confirms, renewals, commits, looks, steps and
    // finishes gave up too, and a copy whose claim failed open could never prove it held the turn.
    const seen: StoreFault[] = [];
    const s = store((f) => seen.push(f));
    const k = uniqueKey('slow-500');
    // Warm: Redis knows the scripts by their SHA (a NOSCRIPT answer would cost a second round trip).
    await s.claim([uniqueKey('slow-warm')], hub, { leaseMs: 5000, body: '{}' });
    await s.confirm(uniqueKey('slow-warm-2'), 'n', 5000);
    await s.renew([{ key: uniqueKey('slow-warm-3'), token: 1 }], 5000);
    await s.commit(uniqueKey('slow-warm-4'), 1, 5000);
    await s.finish(uniqueKey('slow-warm-5'), 1, null);
    await s.keepStep(uniqueKey('slow-warm-6'), 'step', '{}', 1);
    fx.bridge.delayMs = 500;
    try {
      const outcome = await s.claim([k], hub, { leaseMs: 5000, body: '{}' });
      expect(outcome.kind).toBe('fail-open');
      const nonce = outcome.kind === 'fail-open' ? outcome.nonce : undefined;
      expect(nonce).toBeDefined();
      // The claim landed after its copy gave up on it: the confirm says so, and the lease is this copy's.
      expect(await s.confirm(k, nonce!, 5000)).toBe('mine');
      expect(await s.renew([{ key: k, token: 1 }], 5000)).toEqual(['ok']);
      expect(await s.commit(k, 1, 5000)).toBe('ok');
      expect(await s.keepStep(k, 'lookup', '{"ok":true}', 1)).toBe('ok');
      expect(await s.finish(k, 1, '1700000000.000100')).toBe('ok');
      // A claim off the ack path (a turn acked already, claimed again with a lease) has the longer fuse too.
      expect(await s.claim([uniqueKey('slow-late')], hub, { leaseMs: 5000, body: '{}' }, { offAckPath: true })).toEqual({ kind: 'claimed', token: 1 });
      expect(seen.map((f) => f.op)).toEqual(['claim']);
    } finally {
      fx.bridge.delayMs = 0;
    }
    expect(s.commandMs).toBe(2000);
  });

  it('a claim never waits for a socket behind slow commands off the ack path: they have sockets of their own', async () => {
    // With one keep-alive pool (16 sockets) for both, 64 writes of 300 ms each hold every socket for
    // 1,200 ms, and a claim queued behind them fails open (950 ms) although the store answers it in 300 ms.
    const s = store(() => {});
    await s.claim([uniqueKey('pool-warm')], hub);
    fx.bridge.delayMs = 300;
    const before = fx.bridge.requests;
    try {
      // Each from a turn of the event loop of its own, so each is a request of its own (the SDK pipelines one turn's commands).
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 64; i++) {
        writes.push(s.note(uniqueKey(`pool-${i}`), 'v', 60));
        await new Promise((r) => setImmediate(r));
      }
      // Every socket of the writes' pool is busy (the other 48 wait for one).
      await eventually(() => fx.bridge.requests - before === 16, 'the writes to hold 16 sockets');
      expect((await s.claim([uniqueKey('pool-claim')], hub)).kind).toBe('claimed');
      await Promise.all(writes);
    } finally {
      fx.bridge.delayMs = 0;
    }
  });

  it("a command off the ack path gives up on its own fuse (AUTOHUB_STORE_ATTEMPT_MS), not the claim's", async () => {
    const seen: StoreFault[] = [];
    const s = store((f) => seen.push(f), undefined, 700);
    fx.bridge.mode = 'hang';
    try {
      await s.note(uniqueKey('own-fuse'), 'v', 60);
    } finally {
      fx.bridge.mode = 'normal';
    }
    expect(seen).toEqual([expect.objectContaining({ op: 'note', reason: expect.stringMatching(/no answer within (700|750) ms/) })]);
  });

  it('lease operations against a hung store report unreachable, never throw (a hung store is not "lost")', async () => {
    const s = store(() => {}, undefined, 500);
    const k = uniqueKey('lease-hang');
    const policy = { ...DEFAULT_RETRY, attempts: 3, windowMs: 60_000 };
    await s.claim([k], hub, { leaseMs: 1000, body: '{}' });
    fx.bridge.mode = 'hang';
    try {
      expect(await s.renew([{ key: k, token: 1 }], 1000)).toEqual(['unreachable']);
      expect(await s.commit(k, 1, 1000)).toBe('unreachable');
      expect(await s.release(k, 1, { delayMs: 0, reason: 'x', ambiguous: false, policy })).toBe('unreachable');
      expect(await s.look(cloud, 1000, 10)).toBeUndefined();
      expect(s.observed().ok).toBe(false);
    } finally {
      fx.bridge.mode = 'normal';
    }
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

  it('fails every claim open in no more requests than the budget has attempts, and the store reports itself unhealthy', async () => {
    const seen: StoreFault[] = [];
    const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: (f) => void seen.push(f) });
    expect((await s.claim([uniqueKey('before-kill')], hub)).kind).toBe('claimed');
    await fx.redis.stop();
    const before = fx.bridge.requests;
    const outcome = await s.claim([uniqueKey('after-kill')], hub);
    expect(outcome.kind).toBe('fail-open');
    expect(fx.bridge.requests - before).toBeLessThanOrEqual(DEFAULT_CLAIM_BUDGET.attempts);
    expect(seen.at(-1)).toMatchObject({ op: 'claim', reason: expect.stringMatching(/redis unreachable|UpstashError/) });
    expect((await s.ping()).ok).toBe(false);
  });
});
