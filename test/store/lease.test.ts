import { describe, expect, it } from 'vitest';
import { MemoryClaimStore, UpstashClaimStore, type ClaimStore } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;
const cloud = { instance: 'cloud-1', role: 'cloud' } as const;
const other = { instance: 'cloud-2', role: 'cloud' } as const;
let n = 0;
const key = () => `autohub:claim:T1:event:lease-${process.pid}-${++n}`;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

const fx = useRedisBridge();
const stores: Array<[string, () => ClaimStore]> = [
  ['in-process', () => new MemoryClaimStore()],
  ['Upstash over a real Redis', () => new UpstashClaimStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {} })],
];

describe.each(stores)('leases on the %s store', (_, make) => {
  it('a leased claim carries token 1; renew, commit and finish hold with that token', async () => {
    const s = make();
    const k = key();
    expect(await s.claim([k], hub, { leaseMs: 1000, body: '{"x":1}' })).toEqual({ kind: 'claimed', token: 1 });
    expect(await s.renew(k, 1, 1000)).toBe('ok');
    expect(await s.commit(k, 1, 1000)).toBe('ok');
    expect(await s.commit(k, 2, 1000)).toBe('lost');
    expect(await s.finish(k, 1, '1700000000.000100')).toBe('ok');
    expect(await s.commit(k, 1, 1000)).toBe('lost');
    expect(await s.renew(k, 1, 1000)).toBe('lost');
    const done = JSON.parse((await s.read(k))!);
    expect(done).toMatchObject({ state: 'done', reply_ts: '1700000000.000100', instance: 'hub-1' });
    expect(done.body).toBeUndefined();
  });

  it('a lapsed lease is taken over once, with a new token, and fences the old owner out', async () => {
    const s = make();
    const k = key();
    await s.claim([k], hub, { leaseMs: 150, body: '{"event_id":"Ev1"}' });
    expect(await s.takeOver(cloud, 1000, 10)).not.toContainEqual(expect.objectContaining({ key: k }));
    await wait(250);
    const taken = (await s.takeOver(cloud, 1000, 50)).filter((t) => t.key === k);
    expect(taken).toEqual([{ key: k, token: 2, state: 'claimed', body: '{"event_id":"Ev1"}' }]);
    expect(await s.renew(k, 1, 1000)).toBe('lost');
    expect(await s.commit(k, 1, 1000)).toBe('lost');
    expect(await s.commit(k, 2, 1000)).toBe('ok');
    expect(JSON.parse((await s.read(k))!)).toMatchObject({ instance: 'cloud-1', token: 2, state: 'posting' });
  });

  it('a taker-over learns that the dead owner had reached posting', async () => {
    const s = make();
    const k = key();
    await s.claim([k], hub, { leaseMs: 100, body: '{}' });
    await s.commit(k, 1, 100);
    await wait(200);
    expect((await s.takeOver(cloud, 1000, 50)).find((t) => t.key === k)).toMatchObject({ state: 'posting', token: 2 });
  });

  it('a finished or never-leased claim is never taken over', async () => {
    const s = make();
    const finished = key();
    const plain = key();
    await s.claim([finished], hub, { leaseMs: 100, body: '{}' });
    await s.finish(finished, 1, null);
    await s.claim([plain], hub);
    await wait(200);
    const taken = (await s.takeOver(cloud, 1000, 50)).map((t) => t.key);
    expect(taken).not.toContain(finished);
    expect(taken).not.toContain(plain);
  });

  it('no lease is started when the delivery is a duplicate under its message alias', async () => {
    const s = make();
    const alias = key();
    await s.claim([key(), alias], hub, { leaseMs: 100, body: '{}' });
    const k = key();
    expect((await s.claim([k, alias], cloud, { leaseMs: 100, body: '{}' })).kind).toBe('duplicate');
    await wait(200);
    expect((await s.takeOver(other, 1000, 50)).map((t) => t.key)).not.toContain(k);
  });

  it('two reapers racing for lapsed leases: each lease goes to exactly one', async () => {
    const s1 = make();
    const s2 = make();
    const keys = Array.from({ length: 20 }, key);
    for (const k of keys) await s1.claim([k], hub, { leaseMs: 50, body: '{}' });
    await wait(120);
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([s1.takeOver(cloud, 60_000, 100), s2.takeOver(other, 60_000, 100)]);
      const mine = (list: typeof a) => list.map((t) => t.key).filter((k) => keys.includes(k));
      const both = [...mine(a), ...mine(b)];
      expect(new Set(both).size).toBe(both.length);
      if (round === 0) expect(both.sort()).toEqual([...keys].sort());
    }
  });

  it('the owner finishing while a reaper races it: never both', async () => {
    for (let i = 0; i < 10; i++) {
      const s = make();
      const k = key();
      await s.claim([k], hub, { leaseMs: 30, body: '{}' });
      await wait(40);
      const [finished, taken] = await Promise.all([s.finish(k, 1, 'ts'), s.takeOver(cloud, 60_000, 100)]);
      const tookIt = taken.some((t) => t.key === k);
      expect(finished === 'ok' && tookIt).toBe(false);
      expect(finished === 'ok' || tookIt).toBe(true);
    }
  });
});

it('lease operations against a hung store report unreachable, never throw', async () => {
  const s = new UpstashClaimStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {} });
  const k = key();
  await s.claim([k], hub, { leaseMs: 1000, body: '{}' });
  fx.bridge.mode = 'hang';
  try {
    expect(await s.renew(k, 1, 1000)).toBe('unreachable');
    expect(await s.commit(k, 1, 1000)).toBe('unreachable');
    expect(await s.takeOver(cloud, 1000, 10)).toEqual([]);
  } finally {
    fx.bridge.mode = 'normal';
  }
});
