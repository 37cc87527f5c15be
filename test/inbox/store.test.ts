/**
 * The inbox's store scripts over a real redis-server behind the Upstash REST bridge: the count bound refuses,
 * the age bound drops (and counts) rather than refusing, a drain's read drops what is past its age when the
 * copy gives one, the stats are one command, and the lost counts are taken once a receipt.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createInboxStore, INBOX_EXPIRED_KEY, INBOX_KEY, INBOX_LOST_KEY, INBOX_REFUSED_KEY } from '../../lib/inbox/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const NOW = Date.parse('2026-12-02T08:00:00Z');
const H = 3_600_000;
const bounds = { maxCount: 3, maxAgeMs: 24 * H };

describe('the inbox store (scripts on real Redis over the REST bridge)', () => {
  const redis = useRedisBridge();
  const store = (o: { maxAgeMs?: number } = {}) => createInboxStore({ url: redis.bridge.url, token: redis.bridge.token, now: () => NOW, ...o });
  beforeEach(async () => {
    await fetch(redis.bridge.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${redis.bridge.token}` },
      body: JSON.stringify(['del', INBOX_KEY, INBOX_EXPIRED_KEY, INBOX_REFUSED_KEY, INBOX_LOST_KEY]),
    });
  });

  it('keeps up to the count, then refuses with the size, counting each refusal in the same command (before: it said only "full", and nobody was told)', async () => {
    const s = store();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await s.keep(`m${i}`, NOW + i, bounds, 1_000));
    expect(results).toEqual([
      { kind: 'kept', size: 1, expired: 0 },
      { kind: 'kept', size: 2, expired: 0 },
      { kind: 'kept', size: 3, expired: 0 },
      { kind: 'full', size: 3, expired: 0 },
    ]);
    expect((await s.stats()).refused).toBe(1);
  });

  it('an entry past the age bound is dropped and counted by the next keep, which is kept (before: every keep was refused once the oldest was a day old)', async () => {
    const s = store();
    await s.keep('old', NOW - 25 * H, bounds, 1_000);
    await s.keep('exactly-a-day', NOW - 24 * H, bounds, 1_000);
    expect(await s.keep('new', NOW, bounds, 1_000)).toEqual({ kind: 'kept', size: 2, expired: 1 });
    expect((await s.take(10)).map((m) => m.member)).toEqual(['exactly-a-day', 'new']);
    expect(await s.stats()).toEqual({ size: 2, oldestAt: NOW - 24 * H, expired: 1, refused: 0, checkedAt: NOW });
  });

  it("a drain's read drops what is past the copy's age bound, counted; without one it takes everything", async () => {
    await store().keep('old', NOW - 30 * H, { ...bounds, maxAgeMs: 100 * H }, 1_000);
    await store().keep('fresh', NOW - H, { ...bounds, maxAgeMs: 100 * H }, 1_000);
    expect((await store().take(10)).map((m) => m.member)).toEqual(['old', 'fresh']);
    expect(await store({ maxAgeMs: 24 * H }).take(10)).toEqual([{ member: 'fresh', arrivedAt: NOW - H }]);
    expect((await store().stats()).expired).toBe(1);
  });

  it('the stats are one command, empty or not', async () => {
    const s = store();
    const before = redis.bridge.commands;
    expect(await s.stats()).toEqual({ size: 0, oldestAt: undefined, expired: 0, refused: 0, checkedAt: NOW });
    await s.keep('m', NOW, bounds, 1_000);
    const between = redis.bridge.commands;
    await s.stats();
    expect([between - before, redis.bridge.commands - between]).toEqual([2, 1]);
  });

  it('the lost counts are taken once a receipt: asked again under it (its reply lost) they answer the same, not the zeros left', async () => {
    const s = store();
    for (const [member, unopened] of [
      ['a', true],
      ['b', false],
    ] as const) {
      await s.keep(member, NOW, bounds, 1_000);
      expect(await s.drop(member, unopened)).toBe(true);
    }
    expect(await s.takeLost('receipt-1')).toEqual({ dropped: 2, unopened: 1 });
    expect(await s.takeLost('receipt-1')).toEqual({ dropped: 2, unopened: 1 });
    // Taken: the next outage's end starts from none.
    expect(await s.takeLost('receipt-2')).toEqual({ dropped: 0, unopened: 0 });
  });
});
