import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, MemoryStore, STATUS_KEYS, UpstashStore, type SharedStore } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;
const cloud = { instance: 'cloud-1', role: 'cloud' } as const;
const other = { instance: 'cloud-2', role: 'cloud' } as const;
let n = 0;
const key = () => `autohub:claim:T1:event:lease-${process.pid}-${++n}`;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const policy = { ...DEFAULT_RETRY, attempts: 3, windowMs: 60_000 };

const fx = useRedisBridge();
/** Two handles on one store: for Upstash two clients of one database, in process one shared instance (so races are real). */
const stores: Array<[string, () => [SharedStore, SharedStore]]> = [
  [
    'in-process',
    () => {
      const s = new MemoryStore({ gapMs: 100 });
      return [s, s];
    },
  ],
  [
    'Upstash over a real Redis',
    () => {
      const make = () => new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, gapMs: 100 });
      return [make(), make()];
    },
  ],
];

/** Takeovers of `k` by `owner` once its lease is due (leases here run 100-150 ms). */
async function takeWhenDue(s: SharedStore, owner: typeof cloud, k: string, leaseMs = 60_000) {
  for (let i = 0; i < 50; i++) {
    const look = await s.look(owner, leaseMs, 100);
    const mine = look?.taken.filter((t) => t.key === k) ?? [];
    if (mine.length > 0) return mine;
    await wait(20);
  }
  return [];
}

describe.each(stores)('leases on the %s store', (_, pair) => {
  it('a leased claim carries token 1; renewals, commit and finish hold with that token', async () => {
    const [s] = pair();
    const k = key();
    expect(await s.claim([k], hub, { leaseMs: 1000, body: '{"x":1}' })).toEqual({ kind: 'claimed', token: 1 });
    expect(await s.renew([{ key: k, token: 1 }], 1000)).toEqual(['ok']);
    expect(await s.commit(k, 1, 1000)).toBe('ok');
    expect(await s.commit(k, 2, 1000)).toBe('lost');
    expect(await s.finish(k, 1, '1700000000.000100')).toBe('ok');
    expect(await s.commit(k, 1, 1000)).toBe('lost');
    expect(await s.renew([{ key: k, token: 1 }], 1000)).toEqual(['lost']);
    const done = JSON.parse((await s.read(k))!);
    expect(done).toMatchObject({ state: 'done', reply_ts: '1700000000.000100', instance: 'hub-1' });
    expect(done.body).toBeUndefined();
  });

  it('one renewal request answers for every lease a copy holds, each on its own', async () => {
    const [s] = pair();
    const [a, b] = [key(), key()];
    await s.claim([a], hub, { leaseMs: 1000, body: '{}' });
    await s.claim([b], hub, { leaseMs: 1000, body: '{}' });
    await s.finish(b, 1, null);
    expect(
      await s.renew(
        [
          { key: a, token: 1 },
          { key: b, token: 1 },
          { key: a, token: 7 },
        ],
        1000,
      ),
    ).toEqual(['ok', 'lost', 'lost']);
  });

  it("a streamed reply's ts goes into the lease, how much Slack confirmed rides on the renewals, and a taker-over learns the ts", async () => {
    const [s] = pair();
    const k = key();
    await s.claim([k], hub, { leaseMs: 150, body: '{}' });
    expect(await s.markStream(k, 1, '1700000000.000777')).toBe('ok');
    expect(await s.renew([{ key: k, token: 1, confirmed: 42 }], 150)).toEqual(['ok']);
    expect(JSON.parse((await s.read(k))!)).toMatchObject({ stream: '1700000000.000777', stream_confirmed: 42 });
    const [taken] = await takeWhenDue(s, cloud, k);
    expect(taken).toMatchObject({ key: k, streamTs: '1700000000.000777' });
    expect(await s.markStream(k, 1, 'x')).toBe('lost');
  });

  it('a silence in claims longer than the gap is recorded by the claim that ends it, until it is dropped', async () => {
    const [s] = pair();
    await s.claim([key()], hub);
    await wait(150);
    await s.claim([key()], hub);
    const look = await s.look(other, 1000, 0);
    // Longer than the 100 ms gap (the wait's own timing can fall a millisecond short of 150).
    expect(look?.gap?.startedMsAgo).toBeGreaterThan(100);
    expect(look!.gap!.startedMsAgo).toBeGreaterThan(look!.gap!.endedMsAgo);
    await s.dropGap(look!.gap!.raw);
    const after = await s.look(other, 1000, 0);
    expect(after?.gap?.raw).not.toBe(look!.gap!.raw);
  });

  it('only the primary key holds the body; the message alias holds the owner alone', async () => {
    const [s] = pair();
    const [k, alias] = [key(), key()];
    await s.claim([k, alias], hub, { leaseMs: 1000, body: '{"secret":"marker"}' });
    expect(JSON.parse((await s.read(k))!).body).toBe('{"secret":"marker"}');
    expect(await s.read(alias)).not.toContain('marker');
    expect(JSON.parse((await s.read(alias))!)).toMatchObject({ instance: 'hub-1', role: 'hub' });
  });

  it('a lapsed lease is taken over once, with a new token, and fences the old owner out', async () => {
    const [s] = pair();
    const k = key();
    await s.claim([k], hub, { leaseMs: 150, body: '{"event_id":"Ev1"}' });
    expect((await s.look(cloud, 1000, 10))?.taken.map((t) => t.key)).not.toContain(k);
    const taken = await takeWhenDue(s, cloud, k, 1000);
    expect(taken).toEqual([{ key: k, token: 2, state: 'claimed', body: '{"event_id":"Ev1"}', attempts: 2, ambiguous: false }]);
    expect(await s.renew([{ key: k, token: 1 }], 1000)).toEqual(['lost']);
    expect(await s.commit(k, 1, 1000)).toBe('lost');
    expect(await s.commit(k, 2, 1000)).toBe('ok');
    expect(JSON.parse((await s.read(k))!)).toMatchObject({ instance: 'cloud-1', token: 2, state: 'posting' });
  });

  it('a look says when the next lease falls due, and nothing when none is live', async () => {
    const [s] = pair();
    const k = key();
    await s.claim([k], hub, { leaseMs: 5000, body: '{}' });
    const look = await s.look(other, 1000, 0);
    expect(look?.nextDueMs).toBeGreaterThan(0);
    expect(look?.nextDueMs).toBeLessThanOrEqual(5000);
    await s.finish(k, 1, null);
  });

  it('a look writes the copy heartbeat under its instance, so replicas do not overwrite each other', async () => {
    const [s] = pair();
    await s.look(cloud, 1000, 0, '{"instance":"cloud-1"}');
    await s.look(other, 1000, 0, '{"instance":"cloud-2"}');
    const copies = await s.readHash(STATUS_KEYS.copies);
    expect(copies).toMatchObject({ 'cloud-1': '{"instance":"cloud-1"}', 'cloud-2': '{"instance":"cloud-2"}' });
  });

  it('a released turn is taken again when its retry falls due, marked as a retry with its ambiguity', async () => {
    const [s] = pair();
    const k = key();
    await s.claim([k], hub, { leaseMs: 60_000, body: '{}' });
    expect(await s.release(k, 1, { delayMs: 100, reason: 'http 500', ambiguous: true, policy })).toBe('retry');
    expect(await s.finish(k, 1, null)).toBe('lost');
    const [taken] = await takeWhenDue(s, cloud, k);
    expect(taken).toMatchObject({ key: k, token: 2, state: 'retry', attempts: 2, ambiguous: true });
  });

  it('a turn whose runs are spent becomes a dead letter, listed without its body, replayable once, droppable', async () => {
    const [s] = pair();
    const k = key();
    await s.claim([k], hub, { leaseMs: 60_000, body: '{"text":"marker"}', eventId: 'EvDead', channel: 'C1' });
    expect(await s.release(k, 1, { delayMs: 0, reason: 'http 500', ambiguous: false, policy })).toBe('retry');
    const [second] = await takeWhenDue(s, cloud, k);
    expect(await s.release(k, second!.token, { delayMs: 0, reason: 'http 500', ambiguous: false, policy })).toBe('retry');
    const [third] = await takeWhenDue(s, cloud, k);
    expect(third!.attempts).toBe(3);
    expect(await s.release(k, third!.token, { delayMs: 0, reason: 'slack: internal_error', ambiguous: false, policy })).toBe('dead');
    expect((await s.look(other, 1000, 100))?.taken.map((t) => t.key)).not.toContain(k);
    const dead = (await s.listDead(50))!.find((d) => d.key === k);
    expect(dead).toMatchObject({ eventId: 'EvDead', channel: 'C1', reason: 'slack: internal_error', attempts: 3 });
    expect(JSON.stringify(dead)).not.toContain('marker');
    const replay = await s.replayDead(k, other, 60_000);
    expect(replay).toMatchObject({ key: k, state: 'dead', body: '{"text":"marker"}', token: 4 });
    expect(await s.replayDead(k, other, 60_000)).toBeUndefined();
    expect(await s.deadLetter(k, 4, 'slack: channel_not_found')).toBe('ok');
    expect(await s.dropDead(k)).toBe(true);
    expect((await s.listDead(50))!.map((d) => d.key)).not.toContain(k);
    expect(await s.read(k)).not.toContain('marker');
  });

  it('a run that waited on a closed rate-limit window is free: only the retry window ends such a turn', async () => {
    const [s] = pair();
    const k = key();
    await s.claim([k], hub, { leaseMs: 60_000, body: '{}' });
    let token = 1;
    for (let i = 0; i < 5; i++) {
      expect(await s.release(k, token, { delayMs: 0, reason: 'rate-limit budget spent', ambiguous: false, free: true, policy })).toBe('retry');
      const [taken] = await takeWhenDue(s, cloud, k);
      expect(taken!.attempts).toBe(1);
      token = taken!.token;
    }
    expect(await s.release(k, token, { delayMs: 120_000, reason: 'rate-limit budget spent', ambiguous: false, free: true, policy })).toBe('dead');
  });

  it('a retry that would start after the retry window is a dead letter at once', async () => {
    const [s] = pair();
    const k = key();
    await s.claim([k], hub, { leaseMs: 60_000, body: '{}' });
    expect(await s.release(k, 1, { delayMs: 120_000, reason: 'timeout', ambiguous: true, policy })).toBe('dead');
  });

  it('a finished, dead or never-leased claim is never taken over', async () => {
    const [s] = pair();
    const [finished, dead, plain] = [key(), key(), key()];
    await s.claim([finished], hub, { leaseMs: 100, body: '{}' });
    await s.finish(finished, 1, null);
    await s.claim([dead], hub, { leaseMs: 100, body: '{}' });
    await s.deadLetter(dead, 1, 'slack: not_in_channel');
    await s.claim([plain], hub);
    await wait(200);
    const taken = (await s.look(cloud, 1000, 50))?.taken.map((t) => t.key);
    expect(taken).not.toContain(finished);
    expect(taken).not.toContain(dead);
    expect(taken).not.toContain(plain);
  });

  it('no lease is started when the delivery is a duplicate under its message alias', async () => {
    const [s] = pair();
    const alias = key();
    await s.claim([key(), alias], hub, { leaseMs: 100, body: '{}' });
    const k = key();
    expect((await s.claim([k, alias], cloud, { leaseMs: 100, body: '{}' })).kind).toBe('duplicate');
    await wait(200);
    expect((await s.look(other, 1000, 50))?.taken.map((t) => t.key)).not.toContain(k);
    expect(await s.read(k)).toBeNull();
  });

  it('two reapers racing on one store for lapsed leases: each lease goes to exactly one', async () => {
    const [s1, s2] = pair();
    const keys = Array.from({ length: 20 }, key);
    for (const k of keys) await s1.claim([k], hub, { leaseMs: 50, body: '{}' });
    await wait(120);
    const [a, b] = await Promise.all([s1.look(cloud, 60_000, 100), s2.look(other, 60_000, 100)]);
    const mine = (list: typeof a) => (list?.taken ?? []).map((t) => t.key).filter((k) => keys.includes(k));
    const both = [...mine(a), ...mine(b)];
    expect(new Set(both).size).toBe(both.length);
    expect(both.sort()).toEqual([...keys].sort());
  });

  it('the owner finishing while a reaper races it on one store: never both, always one', async () => {
    for (let i = 0; i < 10; i++) {
      const [s1, s2] = pair();
      const k = key();
      await s1.claim([k], hub, { leaseMs: 30, body: '{}' });
      await wait(40);
      const [finished, look] = await Promise.all([s1.finish(k, 1, 'ts'), s2.look(cloud, 60_000, 100)]);
      const tookIt = (look?.taken ?? []).some((t) => t.key === k);
      expect(finished === 'ok' && tookIt).toBe(false);
      expect(finished === 'ok' || tookIt).toBe(true);
    }
  });
});

it('lease operations against a hung store report unreachable, never throw', async () => {
  const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {} });
  const k = key();
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
