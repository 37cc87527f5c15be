/**
 * `ctx.step` runs a part of a turn once per turn. Its JSON result is
 * kept with the turn (sealed, like the body) so a retry or a takeover returns
 * it instead of running the step again; a step costs one store command, a
 * retry's load one more. Run against both stores: the in-process one, and
 * Upstash over a real redis-server behind the REST bridge.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RespClient } from '../../drill/sim/resp-client.js';
import { LeaseLostError, StepLimitError, StoreUnavailableError } from '../../lib/errors/index.js';
import { createSealer, MemoryStore, stepsKey, UpstashStore, CLAIM_TTL_SECONDS, type SharedStore } from '../../lib/store/index.js';
import { StepBook, stepKey, STEPS_PER_TURN, type StepFence, type StepRun } from '../../lib/turn/steps.js';
import { useRedisBridge } from '../support/redis-fixture.js';

let n = 0;
const turnKey = () => `autohub:claim:T1:event:Ev-steps-${process.pid}-${++n}`;

/** A side effect that counts how often it really ran. */
/** A turn's fence as the step book sees it: checks pass, no token, nothing barred, unless `o` says otherwise. */
function fenceOf(o: Partial<StepFence>): StepFence {
  return { check: async () => {}, token: undefined, bar: () => {}, ...o };
}

function ticketDesk() {
  const filed: string[] = [];
  return {
    filed,
    file: async (title: string) => {
      filed.push(title);
      return { id: `TCK-${filed.length}`, title };
    },
  };
}

const fx = useRedisBridge();
const sealer = createSealer(randomBytes(32));
const stores: Array<[string, () => SharedStore]> = [
  ['in-process', () => new MemoryStore()],
  ['upstash', () => new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, sealer })],
];

describe.each(stores)('ctx.step over the %s store', (_kind, makeStore) => {
  it("a retry that loads the kept steps returns the first run's result and files the ticket once", async () => {
    const store = makeStore();
    const key = turnKey();
    const desk = ticketDesk();
    const first = new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined });
    const made = await first.run('file_ticket', () => desk.file('printer on fire'));
    // The copy dies here; another takes the turn over.
    const again = await StepBook.load(store, key, { eventId: 'Ev-steps' });
    const kept = await again.run('file_ticket', () => desk.file('printer on fire'));
    expect(kept).toEqual(made);
    expect(desk.filed).toEqual(['printer on fire']);
  });

  it('a step that returns nothing comes back as undefined, not null, and does not run again', async () => {
    const store = makeStore();
    const key = turnKey();
    let runs = 0;
    await new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined }).run('notify', () => void (runs += 1));
    const again = await StepBook.load(store, key, { eventId: 'Ev-steps' });
    expect(await again.run('notify', () => void (runs += 1))).toBeUndefined();
    expect(runs).toBe(1);
  });

  it('kept results keep their JSON shape (strings, numbers, nested arrays and objects, null)', async () => {
    const store = makeStore();
    const key = turnKey();
    const value = { text: 'héllo "quoted"\n', n: 1.5, list: [1, 'two', null, { deep: true }], none: null };
    await new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined }).run('shape', () => value);
    expect(await (await StepBook.load(store, key, { eventId: 'Ev-steps' })).run('shape', () => ({ other: 1 }))).toEqual(value);
  });

  it("a turn's steps are its own: another turn with the same step name runs it", async () => {
    const store = makeStore();
    const desk = ticketDesk();
    await new StepBook({ eventId: 'Ev-steps', store, key: turnKey(), kept: undefined }).run('file_ticket', () => desk.file('a'));
    await (await StepBook.load(store, turnKey(), { eventId: 'Ev-steps' })).run('file_ticket', () => desk.file('b'));
    expect(desk.filed).toEqual(['a', 'b']);
  });

  it('a step whose fn threw kept nothing: the next run calls it again', async () => {
    const store = makeStore();
    const key = turnKey();
    const book = new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined });
    await expect(book.run('flaky', () => Promise.reject(new Error('model overloaded')))).rejects.toThrow(/model overloaded/);
    expect(await book.run('flaky', () => 'second try')).toBe('second try');
    expect(await (await StepBook.load(store, key, { eventId: 'Ev-steps' })).run('flaky', () => 'third')).toBe('second try');
  });
});

describe('ctx.step over Upstash: sealed, kept as long as the claim, one command each', () => {
  const upstash = () => new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, sealer });

  it('the stored result is sealed (no clear text in Redis) and lives as long as a claim (24 h)', async () => {
    const key = turnKey();
    await new StepBook({ eventId: 'Ev-steps', store: upstash(), key, kept: undefined }).run('search', () => ({ hit: 'secret customer name' }));
    const redis = await RespClient.open(fx.redis.port);
    try {
      const raw = (await redis.command(['HGETALL', stepsKey(key)])) as string[];
      expect(raw[0]).toBe('search');
      expect(raw[1]).toMatch(/^s1\./);
      expect(raw.join(' ')).not.toContain('secret customer name');
      const ttl = Number(await redis.command(['TTL', stepsKey(key)]));
      expect(ttl).toBeGreaterThan(CLAIM_TTL_SECONDS - 60);
      expect(ttl).toBeLessThanOrEqual(CLAIM_TTL_SECONDS);
    } finally {
      redis.close();
    }
  });

  it('a result sealed under a key this copy does not have is not kept here: the step runs again', async () => {
    const key = turnKey();
    const other = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, sealer: createSealer(randomBytes(32)) });
    await new StepBook({ eventId: 'Ev-steps', store: other, key, kept: undefined }).run('search', () => 'theirs');
    expect(await (await StepBook.load(upstash(), key, { eventId: 'Ev-steps' })).run('search', () => 'ours')).toBe('ours');
  });

  it('costs one store command per step kept and one per load; a kept step costs none', async () => {
    const store = upstash();
    const key = turnKey();
    await new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined }).run('warm-up', () => 1); // the script's first EVALSHA may miss (NOSCRIPT)
    const before = fx.bridge.commands;
    const first = new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined });
    for (let i = 0; i < 5; i++) await first.run(`step-${i}`, () => i);
    expect(fx.bridge.commands - before).toBe(5);
    const mid = fx.bridge.commands;
    const again = await StepBook.load(store, key, { eventId: 'Ev-steps' });
    for (let i = 0; i < 5; i++) await again.run(`step-${i}`, () => -1);
    expect(fx.bridge.commands - mid).toBe(1);
  });

  it(`a turn of ${STEPS_PER_TURN} steps costs ${STEPS_PER_TURN} store commands; the next step is refused before fn, at no cost (before: 500 steps cost 517)`, async () => {
    const store = upstash();
    const key = turnKey();
    await new StepBook({ eventId: 'Ev-steps', store, key: turnKey(), kept: undefined }).run('warm-up', () => 1);
    const before = fx.bridge.commands;
    const book = new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined });
    for (let i = 0; i < STEPS_PER_TURN; i++) await book.run(`search-${i}`, () => i);
    expect(fx.bridge.commands - before).toBe(STEPS_PER_TURN);
    let ran = false;
    await expect(book.run('one-too-many', () => (ran = true))).rejects.toBeInstanceOf(StepLimitError);
    expect(ran).toBe(false);
    expect(fx.bridge.commands - before).toBe(STEPS_PER_TURN);
  });

  it('a load the store cannot answer is a transient failure, not steps run blind', async () => {
    const dead = new UpstashStore({ settings: { url: 'http://127.0.0.1:9/', token: 't' }, reporter: () => {}, budget: { attemptMs: 100, attempts: 1 } });
    await expect(StepBook.load(dead, turnKey(), { eventId: 'Ev-steps' })).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('a keep the store cannot answer still returns the result, and says so', async () => {
    const dead = new UpstashStore({ settings: { url: 'http://127.0.0.1:9/', token: 't' }, reporter: () => {}, budget: { attemptMs: 100, attempts: 1 } });
    const unkept: string[] = [];
    const book = new StepBook({ eventId: 'Ev-steps', store: dead, key: turnKey(), kept: undefined, onUnkept: (name) => unkept.push(name) });
    expect(await book.run('file_ticket', () => 'TCK-1')).toBe('TCK-1');
    expect(unkept).toEqual(['file_ticket']);
  });
});

describe.each(stores)('ctx.step is fenced like a write, over the %s store', (_kind, makeStore) => {
  const claimed = async (store: SharedStore, key: string) => {
    expect(await store.claim([key], { instance: 'hub-1', role: 'hub' }, { leaseMs: 10_000, body: '{}' })).toMatchObject({ token: 1 });
  };

  it('a copy whose lease check fails never calls fn (before: a copy that lost the turn while it waited filed the ticket again)', async () => {
    const store = makeStore();
    const desk = ticketDesk();
    const order: string[] = [];
    const book = new StepBook({
      eventId: 'Ev-steps',
      store,
      key: turnKey(),
      kept: undefined,
      fence: fenceOf({
        check: async () => {
          order.push('confirm');
          throw new LeaseLostError('step');
        },
      }),
    });
    await expect(book.run('file_ticket', () => desk.file('printer on fire'))).rejects.toBeInstanceOf(LeaseLostError);
    expect(order).toEqual(['confirm']);
    expect(desk.filed).toEqual([]);
  });

  it('the check runs after the wait and right before fn, once per step run; a kept step is not checked (it runs nothing)', async () => {
    const store = makeStore();
    const key = turnKey();
    const order: string[] = [];
    const fence = fenceOf({ check: async () => void order.push('confirm') });
    await new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined, fence }).run('search', () => void order.push('fn'));
    await (await StepBook.load(store, key, { eventId: 'Ev-steps', fence })).run('search', () => void order.push('fn again'));
    expect(order).toEqual(['confirm', 'fn']);
  });

  it("fn is handed the step's idempotency key, the same on every run of the turn, on any copy, whatever its lease's token (before: nothing to hand the other side, so the run the fence cannot stop filed a second ticket)", async () => {
    const store = makeStore();
    const key = turnKey();
    // A desk that honours idempotency keys, as Stripe's Idempotency-Key does: a key seen before is answered from the first filing.
    const byKey = new Map<string, string>();
    const seen: string[] = [];
    const file = ({ idempotencyKey }: StepRun) => {
      seen.push(idempotencyKey);
      if (!byKey.has(idempotencyKey)) byKey.set(idempotencyKey, `TCK-${byKey.size + 1}`);
      return byKey.get(idempotencyKey);
    };
    // The first owner's fn files, then its copy dies inside fn (nothing kept); the taker-over, under a newer token, runs fn again.
    const first = new StepBook({ store, key, kept: undefined, eventId: 'Ev-key-1', fence: fenceOf({ token: 1 }) });
    await expect(
      first.run('file_ticket', (step) => {
        file(step);
        throw new Error('the copy died inside fn');
      }),
    ).rejects.toThrow('died');
    const taker = await StepBook.load(store, key, { eventId: 'Ev-key-1', fence: fenceOf({ token: 2 }) });
    expect(await taker.run('file_ticket', file)).toBe('TCK-1');
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toMatch(/^ah_[0-9a-f]{37}$/);
    expect(byKey.size).toBe(1);
    // Another step of the turn, and the same step of another turn, are other side effects.
    expect(new Set([stepKey('Ev-key-1', 'file_ticket'), stepKey('Ev-key-1', 'notify'), stepKey('Ev-key-2', 'file_ticket')]).size).toBe(3);
    expect(stepKey('Ev-key-1', 'file_ticket')).toBe(seen[0]);
  });

  it("a copy that lost the turn while fn ran keeps nothing and stands down: the taker-over's result stays (before: the stale copy overwrote it)", async () => {
    const store = makeStore();
    const key = turnKey();
    await claimed(store, key);
    const barred: string[] = [];
    // The record holds the taker-over's token (1 here), which kept its result while the stale copy's fn ran.
    expect(await store.keepStep(key, 'file_ticket', '{"v":"theirs"}', 1)).toBe('ok');
    const stale = new StepBook({ eventId: 'Ev-steps', store, key, kept: undefined, fence: fenceOf({ token: 0, bar: (why) => barred.push(why) }) });
    await expect(stale.run('file_ticket', () => 'mine')).rejects.toBeInstanceOf(LeaseLostError);
    expect(barred).toEqual(['step "file_ticket": another copy holds the turn']);
    expect(await (await StepBook.load(store, key, { eventId: 'Ev-steps' })).run('file_ticket', () => 'again')).toBe('theirs');
  });

  it(`a turn keeps at most ${STEPS_PER_TURN} steps: the next is a StepLimitError naming the step and the bound (before: 500 steps cost 500 store commands)`, async () => {
    const store = makeStore();
    const book = new StepBook({ eventId: 'Ev-steps', store, key: turnKey(), kept: undefined, limit: 3 });
    for (let i = 0; i < 3; i++) await book.run(`search-${i}`, () => i);
    const error = await book.run('search-3', () => 3).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StepLimitError);
    expect(String(error)).toMatch(/ctx\.step\("search-3"\) is step 4 of this turn; a turn keeps at most 3/);
  });
});

describe('ctx.step refuses what it cannot keep', () => {
  const book = () => new StepBook({ eventId: 'Ev-steps', store: new MemoryStore(), key: turnKey(), kept: undefined });

  it("two steps with one name in one turn are an error (the second would get the first's result on a retry)", async () => {
    const b = book();
    await b.run('search', () => 1);
    await expect(b.run('search', () => 2)).rejects.toThrow(/ctx.step\("search"\) ran twice in one turn/);
  });

  it.each([
    ['a Date', () => ({ at: new Date() }), /a Date at \.at/],
    ['a Map', () => new Map(), /a Map/],
    ['a function', () => ({ f: () => 1 }), /a function at \.f/],
    ['a bigint', () => [1n], /a bigint at \[0\]/],
    ['NaN', () => ({ n: NaN }), /NaN at \.n/],
    [
      'a circular object',
      () => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      },
      /a circular reference at \.self/,
    ],
  ])('a result holding %s is a TypeError naming the step and where', async (_what, fn, message) => {
    const b = book();
    const error = await b.run<unknown>('bad', fn as () => unknown).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).toMatch(/ctx\.step\("bad"\)/);
    expect(String(error)).toMatch(message);
  });
});
