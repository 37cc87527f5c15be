/**
 * The two stores the contract suite runs against, behind one shape: the
 * in-process store on an injected clock, and the Upstash store over a real
 * redis-server through the REST bridge. Time is virtual on both: `elapse`
 * moves the in-process clock, and on Redis (whose scripts read its own TIME)
 * rewrites what Redis holds as it would stand `ms` later: every key's TTL
 * shortened (a key whose TTL runs out is deleted), every time stored in the
 * lease and dead sets, the served mark, the gaps and the lease records moved
 * back by `ms`. No test sleeps to make a lease lapse.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { RespClient } from '../../drill/sim/resp-client.js';
import { GAPS_KEY, LEASES_INDEXED_SCORE, LEASES_KEY, SERVED_KEY } from '../../lib/store/keys.js';
import { MemoryStore } from '../../lib/store/memory-store.js';
import { defineScript } from '../../lib/store/script.js';
import type { SharedStore } from '../../lib/store/roles.js';
import { UpstashStore } from '../../lib/store/upstash-store.js';
import { useRedisBridge, type RedisFixture } from '../support/redis-fixture.js';

export interface Subject {
  /** Two handles on one store: two clients of one database, or one shared instance (so races are real). */
  a: SharedStore;
  b: SharedStore;
  /** Every claim nonce either handle made, in order. */
  nonces: string[];
  /** `ms` pass on the store's clock. */
  elapse(ms: number): Promise<void>;
  /** The copies' clock, which rate-limit windows are written on. */
  now(): number;
  /** What an outside force does: one key evicted, the lease set deleted, everything flushed. */
  evict(key: string): Promise<void>;
  dropIndex(): Promise<void>;
  flush(): Promise<void>;
}

export interface SubjectOptions {
  /** Silences in serving longer than this are recorded as gaps. @default 0 (none) */
  gapMs?: number;
}

export interface StoreUnderTest {
  name: string;
  open(options?: SubjectOptions): Subject;
}

/** Moves every time Redis holds back by ARGV[1] ms, and every TTL down by it: Redis as it would be that much later. */
const ELAPSE_SCRIPT = defineScript({
  keys: [],
  // The keys it reads by name come as ARGV: it touches every key (KEYS *), named or not.
  args: { ms: 'number', leases: 'string', served: 'string', gaps: 'string', whole: 'number' },
  body: `for _, k in ipairs(redis.call('KEYS', '*')) do
  local pttl = redis.call('PTTL', k)
  if pttl > 0 and pttl <= ms then redis.call('DEL', k)
  else
    if pttl > 0 then redis.call('PEXPIRE', k, pttl - ms) end
    local t = redis.call('TYPE', k).ok
    if t == 'zset' then
      local m = redis.call('ZRANGE', k, 0, -1, 'WITHSCORES')
      for i = 1, #m, 2 do
        local score = tonumber(m[i + 1])
        if score < whole then redis.call('ZADD', k, score - ms, m[i]) end
      end
    elseif t == 'list' and k == gaps then
      local list = redis.call('LRANGE', k, 0, -1)
      for i, g in ipairs(list) do
        local a, b = string.match(g, '^(%d+):(%d+)$')
        if a then redis.call('LSET', k, i - 1, string.format('%d:%d', tonumber(a) - ms, tonumber(b) - ms)) end
      end
    elseif t == 'string' then
      local raw = redis.call('GET', k)
      if k == served then
        redis.call('SET', k, string.format('%d', tonumber(raw) - ms), 'KEEPTTL')
      elseif string.sub(raw, 1, 1) == '{' then
        local ok, rec = pcall(cjson.decode, raw)
        if ok and type(rec) == 'table' and (rec.first_at or rec.dead_at) then
          if rec.first_at then rec.first_at = rec.first_at - ms end
          if rec.dead_at then rec.dead_at = rec.dead_at - ms end
          redis.call('SET', k, cjson.encode(rec), 'KEEPTTL')
        end
      end
    end
  end
end
return 1`,
});

function recording(nonces: string[]): () => string {
  let n = 0;
  return () => nonces[nonces.push(`n-${process.pid}-${++n}-${Math.random().toString(36).slice(2, 8)}`) - 1]!;
}

export const inProcess: StoreUnderTest = {
  name: 'in-process',
  open(options = {}) {
    let now = Date.UTC(2026, 0, 5, 12);
    const nonces: string[] = [];
    const s = new MemoryStore({ now: () => now, nonce: recording(nonces), ...(options.gapMs ? { gapMs: options.gapMs } : {}) });
    return {
      a: s,
      b: s,
      nonces,
      elapse: async (ms) => {
        now += ms;
      },
      now: () => now,
      evict: async (key) => s.evict(key),
      dropIndex: async () => s.dropIndex(),
      flush: async () => s.flush(),
    };
  },
};

/**
 * The Upstash store over a private redis-server (one per test file), flushed
 * before each test so every test starts from an empty database.
 */
export function overRedis(): StoreUnderTest {
  const fx: RedisFixture = useRedisBridge();
  let raw: RespClient;
  beforeAll(async () => {
    raw = await RespClient.open(fx.redis.port);
  });
  afterAll(() => raw?.close());
  beforeEach(async () => {
    await raw.command(['FLUSHALL']);
  });
  return {
    name: 'Upstash over a real Redis',
    open(options = {}) {
      const nonces: string[] = [];
      const nonce = recording(nonces);
      const make = () => new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {}, nonce, gapMs: options.gapMs ?? 0 });
      return {
        a: make(),
        b: make(),
        nonces,
        elapse: async (ms) =>
          void (await raw.command([
            'EVAL',
            ELAPSE_SCRIPT.source,
            0,
            ...ELAPSE_SCRIPT.layout({ keys: {}, args: { ms, leases: LEASES_KEY, served: SERVED_KEY, gaps: GAPS_KEY, whole: LEASES_INDEXED_SCORE } }).args,
          ])),
        now: Date.now,
        evict: async (key) => void (await raw.command(['DEL', key])),
        dropIndex: async () => void (await raw.command(['DEL', LEASES_KEY])),
        flush: async () => void (await raw.command(['FLUSHALL'])),
      };
    },
  };
}
