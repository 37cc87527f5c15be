import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../lib/store/index.js';

const hub = { instance: 'hub-1', role: 'hub' } as const;

describe('MemoryStore', () => {
  it('claims a key once and calls every later claim a duplicate', async () => {
    const store = new MemoryStore();
    expect((await store.claim(['k'], hub)).kind).toBe('claimed');
    expect((await store.claim(['k'], hub)).kind).toBe('duplicate');
  });

  it('50 concurrent claims of one key give one claim and 49 duplicates', async () => {
    const store = new MemoryStore();
    const kinds = (await Promise.all(Array.from({ length: 50 }, () => store.claim(['race'], hub)))).map((o) => o.kind);
    expect(kinds.filter((k) => k === 'claimed')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'duplicate')).toHaveLength(49);
  });

  it('a message alias taken under another event id is a duplicate', async () => {
    const store = new MemoryStore();
    await store.claim(['ev-1', 'msg'], hub);
    expect((await store.claim(['ev-2', 'msg'], hub)).kind).toBe('duplicate');
  });

  it('a claim expires after its TTL on the injected clock', async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now, ttlSeconds: 10 });
    await store.claim(['k'], hub);
    now += 10_001;
    expect((await store.claim(['k'], hub)).kind).toBe('claimed');
  });

  it('written values expire after their own TTL', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    await store.note('w', 'v', 5);
    expect(await store.read('w')).toBe('v');
    now = 5_000;
    expect(await store.read('w')).toBeNull();
  });

  it("a lock is its holder's until it lapses or the holder lets it go; another holder cannot let it go", async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    expect(await store.lock('l', 10, 'a')).toBe(true);
    expect(await store.lock('l', 10, 'b')).toBe(false);
    expect(await store.lock('l', 10, 'a')).toBe(true);
    await store.unlock('l', 'b');
    expect(await store.lock('l', 10, 'b')).toBe(false);
    now = 10_000;
    expect(await store.lock('l', 10, 'b')).toBe(true);
    await store.unlock('l', 'b');
    expect(await store.lock('l', 10, 'a')).toBe(true);
  });
});
