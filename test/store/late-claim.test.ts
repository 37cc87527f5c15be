/**
 * A claim that timed out at its copy but landed in the store after all: the
 * copy can ask about it once the store answers (`confirm`), and its own look
 * never takes over the turn it is running. Both stores, one table.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore, UpstashStore, type SharedStore } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;
const cloud = { instance: 'cloud-1', role: 'cloud' } as const;
let n = 0;
const key = () => `autohub:claim:T1:event:late-${process.pid}-${++n}`;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

const fx = useRedisBridge();
/** A store whose claims' nonces the test knows: `nonces` holds each claim's, in order. */
const stores: Array<[string, () => { s: SharedStore; nonces: string[] }]> = [
  [
    'in-process',
    () => {
      const nonces: string[] = [];
      const nonce = () => nonces[nonces.push(`n-${++n}`) - 1]!;
      return { s: new MemoryStore({ nonce }), nonces };
    },
  ],
  [
    'Upstash over a real Redis',
    () => {
      const nonces: string[] = [];
      const nonce = () => nonces[nonces.push(`n-${process.pid}-${++n}`) - 1]!;
      return { s: new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, nonce }), nonces };
    },
  ],
];

describe.each(stores)('a claim that landed late, on the %s store', (_, make) => {
  it('confirm finds a claim by its nonce: mine (and its lease kept), absent, held by another, or lost to a takeover', async () => {
    // The bug: a claim that timed out but landed was unknown to its copy, whose turn then ran fail-open while its lease lapsed and was taken over: two replies.
    const { s, nonces } = make();
    const [k, never, other] = [key(), key(), key()];
    await s.claim([k], hub, { leaseMs: 100, body: '{}' });
    const mine = nonces.at(-1)!;
    expect(await s.confirm(k, mine, 60_000)).toBe('mine');
    // Its lease now runs a minute: a look 150 ms on does not take it.
    await wait(150);
    expect((await s.look(cloud, 60_000, 100))?.taken.map((t) => t.key)).not.toContain(k);
    expect(await s.renew([{ key: k, token: 1 }], 60_000)).toEqual(['ok']);
    expect(await s.confirm(never, mine, 60_000)).toBe('absent');
    await s.claim([other], cloud, { leaseMs: 60_000, body: '{}' });
    expect(await s.confirm(other, mine, 60_000)).toBe('held');
    // Taken over after it lapsed: the late claim is no longer its copy's.
    const lapsing = key();
    await s.claim([lapsing], hub, { leaseMs: 50, body: '{}' });
    const lapsingNonce = nonces.at(-1)!;
    await wait(80);
    expect((await s.look(cloud, 60_000, 100))?.taken.map((t) => t.key)).toContain(lapsing);
    expect(await s.confirm(lapsing, lapsingNonce, 60_000)).toBe('lost');
  });

  it("a copy's own look never takes over a turn it runs itself: the lease is kept for it, and another copy's look takes it only once it lapses", async () => {
    // The bug: the reaper of the copy running a late-landed claim fail-open took that claim's lapsed lease and ran the turn a second time.
    const { s } = make();
    const k = key();
    await s.claim([k], hub, { leaseMs: 50, body: '{}' });
    await wait(80);
    const own = await s.look(hub, 100, 100, undefined, { running: [k] });
    expect(own?.taken.map((t) => t.key)).not.toContain(k);
    expect(await s.look(cloud, 60_000, 100)).toMatchObject({ taken: expect.not.arrayContaining([expect.objectContaining({ key: k })]) });
    await wait(150);
    expect((await s.look(cloud, 60_000, 100))?.taken.map((t) => t.key)).toContain(k);
  });
});

it('a leased claim that timed out while Redis was stopped lands when it resumes; the fail-open outcome carries its nonce, and confirm says it is mine', async () => {
  const s = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {} });
  const k = key();
  fx.redis.pause();
  let outcome: Awaited<ReturnType<typeof s.claim>>;
  try {
    outcome = await s.claim([k], hub, { leaseMs: 60_000, body: '{}' });
  } finally {
    fx.redis.resume();
  }
  expect(outcome).toMatchObject({ kind: 'fail-open', nonce: expect.any(String) });
  for (let i = 0; i < 100 && (await s.read(k)) === null; i++) await wait(20);
  expect(await s.read(k)).not.toBeNull();
  expect(await s.confirm(k, (outcome as { nonce: string }).nonce, 60_000)).toBe('mine');
});
