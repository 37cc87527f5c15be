/**
 * A store that forgets (FLUSHALL, Upstash evicting a key from a full
 * database, the lease set lost) and a turn whose owners keep dying: every
 * new store method, through one table against both stores.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespClient } from '../../drill/sim/resp-client.js';
import { createSealer, DEFAULT_RETRY, LEASES_KEY, MemoryStore, UpstashStore, type SharedStore } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;
const cloud = { instance: 'cloud-1', role: 'cloud' } as const;
let n = 0;
const key = () => `autohub:claim:T1:event:forget-${process.pid}-${++n}`;
const alias = () => `autohub:claim:T1:message:app_mention:C1:forget-${process.pid}-${++n}`;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const policy = { ...DEFAULT_RETRY, attempts: 3, windowMs: 60_000 };

/** What an outside force does to the store: one key evicted, the lease set deleted, everything flushed. */
interface Forgetting {
  evict(key: string): Promise<void>;
  dropIndex(): Promise<void>;
  flush(): Promise<void>;
}

const fx = useRedisBridge();
let redis: RespClient;
beforeAll(async () => {
  redis = await RespClient.open(fx.redis.port);
});
afterAll(() => redis?.close());

const sealer = createSealer(randomBytes(32));
const stores: Array<[string, () => [SharedStore, Forgetting]]> = [
  [
    'in-process',
    () => {
      const s = new MemoryStore();
      return [s, { evict: async (k) => s.evict(k), dropIndex: async () => s.dropIndex(), flush: async () => s.flush() }];
    },
  ],
  [
    'Upstash over a real Redis',
    () => {
      const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, sealer });
      return [
        s,
        {
          evict: async (k) => void (await redis.command(['DEL', k])),
          dropIndex: async () => void (await redis.command(['DEL', LEASES_KEY])),
          flush: async () => void (await redis.command(['FLUSHALL'])),
        },
      ];
    },
  ],
];

/** Looks by `owner` until `k` is taken over (leases here run 100-200 ms). */
async function takeWhenDue(s: SharedStore, k: string, leaseMs = 60_000, p = policy) {
  for (let i = 0; i < 100; i++) {
    const look = await s.look(cloud, leaseMs, 100, undefined, { policy: p });
    const mine = look?.taken.filter((t) => t.key === k) ?? [];
    if (mine.length > 0) return mine;
    await wait(20);
  }
  return [];
}

/** Looks until `k` is dead-lettered by a look; every look's takeovers of it are kept too. */
async function diesWhenDue(s: SharedStore, k: string) {
  const taken: string[] = [];
  for (let i = 0; i < 100; i++) {
    const look = await s.look(cloud, 60_000, 100, undefined, { policy });
    taken.push(...(look?.taken.filter((t) => t.key === k).map((t) => t.key) ?? []));
    const dead = look?.dead.filter((d) => d.key === k) ?? [];
    if (dead.length > 0) return { dead, taken };
    await wait(20);
  }
  return { dead: [], taken };
}

describe.each(stores)('a store that forgets, on the %s store', (_, make) => {
  it('a renewal, commit or stream mark that finds no record says "missing", not "lost": nobody else holds the turn', async () => {
    // The bug: a flushed or evicted record read as "another copy holds the turn", so its owner stood down and nobody answered.
    const [s, forget] = make();
    const k = key();
    await s.claim([k], hub, { leaseMs: 1000, body: '{}' });
    await forget.evict(k);
    expect(await s.renew([{ key: k, token: 1 }], 1000)).toEqual(['missing']);
    expect(await s.commit(k, 1, 1000)).toBe('missing');
    expect(await s.markStream(k, 1, '1700000000.000001')).toBe('missing');
    expect(await s.finish(k, 1, '1700000000.000001')).toBe('missing');
    // A record held under another token is still "lost".
    const other = key();
    await s.claim([other], hub, { leaseMs: 1000, body: '{}' });
    expect(await s.renew([{ key: other, token: 2 }], 1000)).toEqual(['lost']);
  });

  it('handing back or dead-lettering a turn whose record is gone says "missing"; once restored, the hand-back is a retry', async () => {
    // The bug: a turn that failed right after the store forgot it was "lost": no retry, no dead letter, no answer.
    const [s, forget] = make();
    const k = key();
    await s.claim([k], hub, { leaseMs: 60_000, body: '{}' });
    await forget.evict(k);
    expect(await s.release(k, 1, { delayMs: 0, reason: 'http 500', ambiguous: true, policy })).toBe('missing');
    expect(await s.deadLetter(k, 1, 'slack: not_in_channel')).toBe('missing');
    expect(await s.restore(k, 1, hub, { leaseMs: 60_000, body: '{}' }, [])).toBe('ok');
    expect(await s.release(k, 1, { delayMs: 0, reason: 'http 500', ambiguous: true, policy })).toBe('retry');
    const [taken] = await takeWhenDue(s, k);
    expect(taken).toMatchObject({ key: k, token: 2, state: 'retry', ambiguous: true });
  });

  it('restore writes the claim again under the same token, with its runs and stream, and re-creates the message alias', async () => {
    const [s, forget] = make();
    const [k, a] = [key(), alias()];
    await s.claim([k, a], hub, { leaseMs: 150, body: '{"text":"marker"}', eventId: 'EvR', channel: 'C1' });
    await forget.evict(k);
    await forget.evict(a);
    expect(
      await s.restore(k, 1, hub, { leaseMs: 150, body: '{"text":"marker"}', eventId: 'EvR', channel: 'C1' }, [a], {
        attempts: 1,
        streamTs: '1700000000.000009',
      }),
    ).toBe('ok');
    expect(await s.renew([{ key: k, token: 1 }], 150)).toEqual(['ok']);
    expect(await s.commit(k, 1, 150)).toBe('ok');
    // A later delivery of the message under another event id is a duplicate, not a second run.
    expect((await s.claim([key(), a], cloud, { leaseMs: 150, body: '{}' })).kind).toBe('duplicate');
    // Back in the lease set: when its owner dies it is taken over, with the body and the streamed message.
    const [taken] = await takeWhenDue(s, k);
    expect(taken).toMatchObject({ key: k, token: 2, body: '{"text":"marker"}', streamTs: '1700000000.000009', attempts: 2 });
  });

  it('restore is only for a key that is gone: "lost" when another record is there, and it is left as it was', async () => {
    const [s] = make();
    const k = key();
    await s.claim([k], hub, { leaseMs: 100, body: '{"v":1}' });
    const [taken] = await takeWhenDue(s, k);
    expect(taken!.token).toBe(2);
    expect(await s.restore(k, 1, hub, { leaseMs: 100, body: '{"v":"old"}' }, [])).toBe('lost');
    expect(JSON.parse((await s.read(k))!)).toMatchObject({ token: 2, instance: 'cloud-1' });
    // Its own token's live record: the restore landed before (its answer lost), so it is ours.
    expect(await s.restore(k, 2, cloud, { leaseMs: 60_000, body: '{"v":1}' }, [])).toBe('ok');
  });

  it('after FLUSHALL the owner restores its turn and finishes it; no dead letter', async () => {
    const [s, forget] = make();
    const [k, a] = [key(), alias()];
    await s.claim([k, a], hub, { leaseMs: 60_000, body: '{}' });
    await forget.flush();
    expect(await s.renew([{ key: k, token: 1 }], 60_000)).toEqual(['missing']);
    expect(await s.restore(k, 1, hub, { leaseMs: 60_000, body: '{}' }, [a])).toBe('ok');
    expect(await s.pending()).toBe(1);
    expect(await s.finish(k, 1, '1700000000.000100')).toBe('ok');
    // The look rebuilds the set and marks it whole; the mark is no turn.
    await s.look(cloud, 60_000, 0);
    expect(await s.pending()).toBe(0);
    expect((await s.listDead(50))!.map((d) => d.key)).not.toContain(k);
  });

  it('a lost lease set is noticed by a look and rebuilt from the records: a dead owner left out of it is still taken over', async () => {
    // The bug: with the set deleted, the dead owner's turn was never taken over.
    const [s, forget] = make();
    const [k, done] = [key(), key()];
    await s.claim([k], hub, { leaseMs: 60_000, body: '{"v":"kept"}' });
    await s.claim([done], hub, { leaseMs: 60_000, body: '{}' });
    await s.finish(done, 1, null);
    await s.look(cloud, 60_000, 0);
    await forget.dropIndex();
    // A claim after the loss re-creates the set, but not its "whole" mark.
    const later = key();
    await s.claim([later], hub, { leaseMs: 60_000, body: '{}' });
    const look = await s.look(cloud, 150, 100);
    expect(look?.reindexed).toBe(1);
    expect(look?.nextDueMs).toBeLessThanOrEqual(150);
    const [taken] = await takeWhenDue(s, k, 150);
    expect(taken).toMatchObject({ key: k, token: 2, body: '{"v":"kept"}' });
    // The finished one stays out, the mark is back: the next look costs nothing more.
    expect((await s.look(cloud, 150, 100))?.reindexed).toBe(0);
  });

  it("a lapsed lease whose owner died counts that run: past the policy's runs it is dead-lettered by the look, not taken, and reported once", async () => {
    // The bug: a takeover counted no run, and a turn that killed every copy running it was taken over forever.
    const [s] = make();
    const k = key();
    await s.claim([k], hub, { leaseMs: 100, body: '{"text":"marker"}', eventId: 'EvDies', channel: 'C9' });
    const [second] = await takeWhenDue(s, k, 100);
    expect(second).toMatchObject({ token: 2, attempts: 2 });
    const [third] = await takeWhenDue(s, k, 100);
    expect(third).toMatchObject({ token: 3, attempts: 3 });
    const { dead, taken } = await diesWhenDue(s, k);
    expect(taken).toEqual([]);
    expect(dead).toEqual([expect.objectContaining({ key: k, eventId: 'EvDies', channel: 'C9', reason: 'owner died 3 times', attempts: 3 })]);
    expect(JSON.stringify(dead)).not.toContain('marker');
    const next = await s.look(cloud, 60_000, 100, undefined, { policy });
    expect(next?.dead).toEqual([]);
    expect(next?.taken.map((t) => t.key)).not.toContain(k);
    expect((await s.listDead(50))!.find((d) => d.key === k)).toMatchObject({ reason: 'owner died 3 times', attempts: 3 });
    expect(JSON.parse((await s.read(k))!)).toMatchObject({ state: 'dead', deaths: 3 });
    // A replay counts its runs and deaths afresh.
    expect(await s.replayDead(k, cloud, 100)).toMatchObject({ key: k, attempts: 1 });
    expect(await takeWhenDue(s, k, 100)).toHaveLength(1);
  });

  it('a lapsed lease past the retry window is dead-lettered by the look; a due retry is still taken (its release decided)', async () => {
    const [s] = make();
    const [late, retried] = [key(), key()];
    await s.claim([late], hub, { leaseMs: 100, body: '{}' });
    await s.claim([retried], hub, { leaseMs: 60_000, body: '{}' });
    expect(await s.release(retried, 1, { delayMs: 100, reason: 'http 500', ambiguous: false, policy })).toBe('retry');
    await wait(150);
    const look = await s.look(cloud, 60_000, 100, undefined, { policy: { ...policy, windowMs: 50 } });
    const ours = (keys: string[] = []) => keys.filter((x) => x === late || x === retried);
    expect(ours(look?.dead.map((d) => d.key))).toEqual([late]);
    expect(ours(look?.taken.map((t) => t.key))).toEqual([retried]);
  });

  it('a look given no policy (a caller that has none) takes every lapsed lease and dead-letters none', async () => {
    const [s] = make();
    const k = key();
    await s.claim([k], hub, { leaseMs: 50, body: '{}' });
    await wait(80);
    const look = await s.look(cloud, 60_000, 100);
    expect(look?.taken.map((t) => t.key)).toContain(k);
    expect(look?.dead).toEqual([]);
  });
});

it('the Upstash store seals a restored body as a claim does, and a takeover opens it', async () => {
  const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, sealer });
  const k = key();
  await s.claim([k], hub, { leaseMs: 100, body: '{"text":"marker"}' });
  await redis.command(['DEL', k]);
  expect(await s.restore(k, 1, hub, { leaseMs: 100, body: '{"text":"marker"}' }, [])).toBe('ok');
  const raw = String(await redis.command(['GET', k]));
  expect(raw).not.toContain('marker');
  expect(JSON.parse(raw).body).toMatch(/^s1\./);
  const [taken] = await takeWhenDue(s, k, 60_000);
  expect(taken!.body).toBe('{"text":"marker"}');
});

it('a lost lease set costs its scan once: after the rebuild, a look and a renewal that find everything in place are one command each', async () => {
  const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, sealer });
  const [a, b] = [key(), key()];
  await s.claim([a], hub, { leaseMs: 60_000, body: '{}' });
  await s.claim([b], hub, { leaseMs: 60_000, body: '{}' });
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
