/**
 * The inbox in the shared store (Upstash REST, plain `fetch`, so the Worker
 * and Node run the same code): one sorted set, `autohub:inbox`, each member
 * a sealed kept delivery, scored by its arrival time, and one counter,
 * `autohub:inbox:expired`, of the entries dropped for their age.
 *
 * Keeping is one command (a script: drop and count what is older than
 * `maxAgeMs`, refuse when the set still holds `maxCount`, else add). Reading
 * its size, oldest entry and drop count is one command too. Nothing here runs
 * on the normal path: the edge keeps only what no copy accepted.
 */
// The one file, not lib/store's index: the Worker bundles this module, and the index brings the Node store with it.
import { defineScript, type Script, type ScriptInput } from '../store/script.js';

export const INBOX_KEY = 'autohub:inbox';
/** Entries dropped for their age, ever (never silently: the health body and `/autohub status` show it). */
export const INBOX_EXPIRED_KEY = 'autohub:inbox:expired';
/** Deliveries refused because the inbox was full, ever: counted by the keep that refused them (no command of its own). */
export const INBOX_REFUSED_KEY = 'autohub:inbox:refused';

/**
 * Expires, then refuses at the count bound or adds.
 * Returns {kept (1) or full (0), size after, expired now}.
 */
export const KEEP_SCRIPT = defineScript({
  keys: ['set', 'expiredKey', 'refusedKey'],
  args: { member: 'string', arrivedAt: 'string', maxCount: 'number', staleBefore: 'string' },
  body: `local expired = redis.call('ZREMRANGEBYSCORE', set, '-inf', staleBefore)
if expired > 0 then redis.call('INCRBY', expiredKey, expired) end
local size = redis.call('ZCARD', set)
if size >= maxCount then
  redis.call('INCR', refusedKey)
  return {0, size, expired}
end
redis.call('ZADD', set, arrivedAt, member)
return {1, size + 1, expired}`,
});

/** Expires (counted), then the oldest `count` entries with their scores. Returns {expired now, member, score, ...}. */
export const TAKE_SCRIPT = defineScript({
  keys: ['set', 'expiredKey'],
  args: { count: 'number', staleBefore: 'string' },
  body: `local expired = 0
if staleBefore ~= '' then
  expired = redis.call('ZREMRANGEBYSCORE', set, '-inf', staleBefore)
  if expired > 0 then redis.call('INCRBY', expiredKey, expired) end
end
local out = redis.call('ZRANGE', set, 0, count - 1, 'WITHSCORES')
table.insert(out, 1, tostring(expired))
return out`,
});

/**
 * Drops a kept delivery no copy can run: removes it and, only when this call removed it (two copies draining at once
 * both try), counts it in the outage's lost counts, in one step, so a copy ending the outage never reads them half
 * counted. Returns 1 when it removed it, else 0.
 */
export const DROP_SCRIPT = `local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 1 then
  redis.call('HINCRBY', KEYS[2], 'dropped', 1)
  if ARGV[2] == '1' then redis.call('HINCRBY', KEYS[2], 'unopened', 1) end
end
return removed`;

/**
 * The outage's lost counts, read and reset, once a receipt: {dropped, unopened}. What was taken stays under the
 * receipt for `keepS`, so the same receipt asked again (its first reply lost on the way) gets the same counts, never
 * the zeros a second read of the reset counts would give.
 */
export const TAKE_LOST_SCRIPT = defineScript({
  keys: ['lostKey', 'receiptKey'],
  args: { keepS: 'number' },
  body: `local taken = redis.call('GET', receiptKey)
if taken then
  local dropped, unopened = string.match(taken, '^(%d+)|(%d+)$')
  return {dropped, unopened}
end
local dropped = redis.call('HGET', lostKey, 'dropped') or '0'
local unopened = redis.call('HGET', lostKey, 'unopened') or '0'
redis.call('DEL', lostKey)
redis.call('SET', receiptKey, dropped .. '|' .. unopened, 'EX', keepS)
return {tostring(dropped), tostring(unopened)}`,
});

/** How long a taking of the lost counts is kept under its receipt: longer than a drain's asks of it. */
const LOST_RECEIPT_S = 300;

/** Kept deliveries dropped since the last outage's end was told: `dropped`, and of them `unopened` (another store key). */
export const INBOX_LOST_KEY = 'autohub:inbox:lost';

/** {size, oldest score or '' when empty, expired ever, refused ever}, as strings (the REST encoding turns every string alike). */
export const STATS_SCRIPT = defineScript({
  keys: ['set', 'expiredKey', 'refusedKey'],
  args: {},
  body: `local size = redis.call('ZCARD', set)
local oldest = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
return {tostring(size), oldest[2] or '', redis.call('GET', expiredKey) or '0', redis.call('GET', refusedKey) or '0'}`,
});

export interface InboxStoreSettings {
  url: string;
  token: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default Date.now */
  now?: () => number;
  /**
   * Entries older than this are dropped (and counted) when taken for a drain.
   * The edge's keep drops them whatever this says (it passes its own bound).
   * @default none: a drain takes every entry
   */
  maxAgeMs?: number;
}

export interface KeptMember {
  member: string;
  arrivedAt: number;
}

export interface InboxStats {
  size: number;
  /** The oldest entry's arrival (ms), when any. */
  oldestAt: number | undefined;
  /** Entries dropped for their age since the store began (`autohub:inbox:expired`). */
  expired?: number;
  /** Deliveries refused with 503 because the inbox was full, since the store began (`autohub:inbox:refused`). */
  refused?: number;
  /** When the store was asked (ms, this process's clock). */
  checkedAt?: number;
}

/** What one keep did: kept, or refused at the count bound; the size after, and what it dropped for age. */
export interface KeepResult {
  kind: 'kept' | 'full';
  size: number;
  expired: number;
}

/** The narrow port the edge and the copies use. */
export interface InboxStore {
  /** 'kept', or 'full' at the count bound; entries older than `maxAgeMs` dropped first; rejects when the store did not answer within `timeoutMs`. */
  keep(member: string, arrivedAt: number, bounds: { maxCount: number; maxAgeMs: number }, timeoutMs: number): Promise<KeepResult>;
  /** The oldest `count` entries (past `maxAgeMs`, when set, dropped and counted first). */
  take(count: number): Promise<KeptMember[]>;
  remove(member: string): Promise<void>;
  /** Removes a delivery no copy can run, counted as lost (and `unopened`) when this call removed it: true then. */
  drop(member: string, unopened: boolean): Promise<boolean>;
  /**
   * The lost counts since they were last taken, reset: for the one copy that tells the owner an outage's end. Asked
   * again with the same `receipt`, it answers what that receipt took (safe to retry when a reply was lost).
   */
  takeLost(receipt: string): Promise<{ dropped: number; unopened: number }>;
  /** One command. */
  stats(): Promise<InboxStats>;
}

export class InboxStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InboxStoreError';
  }
}

const KEYS = { set: INBOX_KEY, expiredKey: INBOX_EXPIRED_KEY, refusedKey: INBOX_REFUSED_KEY } as const;

/** `EVAL` as Upstash's REST API takes it: the source, how many keys, the keys, the arguments. */
function evalCommand<K extends string, A extends string>(script: Script<K, A>, input: ScriptInput<K, A>): Array<string | number> {
  const { keys, args } = script.layout(input);
  return ['EVAL', script.source, keys.length, ...keys, ...args];
}

export function createInboxStore(settings: InboxStoreSettings): InboxStore {
  const send = settings.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const now = settings.now ?? Date.now;
  const base = settings.url.replace(/\/+$/, '');
  const command = async (args: Array<string | number>, timeoutMs = 5_000): Promise<unknown> => {
    const response = await send(base, {
      method: 'POST',
      headers: { authorization: `Bearer ${settings.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args.map(String)),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const reply = (await response.json().catch(() => ({}))) as { result?: unknown; error?: string };
    // The status and Upstash's word, never the command (it holds a sealed delivery).
    if (!response.ok || reply.error !== undefined) throw new InboxStoreError(`store answered ${response.status}: ${reply.error ?? 'no result'}`);
    return reply.result;
  };
  return {
    async keep(member, arrivedAt, bounds, timeoutMs) {
      // Strictly older than the bound: `(` makes ZREMRANGEBYSCORE's max exclusive.
      const staleBefore = `(${arrivedAt - bounds.maxAgeMs}`;
      const reply = (await command(
        evalCommand(KEEP_SCRIPT, { keys: KEYS, args: { member, arrivedAt, maxCount: bounds.maxCount, staleBefore } }),
        timeoutMs,
      )) as number[];
      return { kind: Number(reply[0]) === 1 ? 'kept' : 'full', size: Number(reply[1]), expired: Number(reply[2]) };
    },
    async take(count) {
      const staleBefore = settings.maxAgeMs === undefined ? '' : `(${now() - settings.maxAgeMs}`;
      const flat = ((await command(evalCommand(TAKE_SCRIPT, { keys: KEYS, args: { count, staleBefore } }))) as string[] | null) ?? [];
      const out: KeptMember[] = [];
      for (let i = 1; i + 1 < flat.length; i += 2) out.push({ member: flat[i]!, arrivedAt: Number(flat[i + 1]) });
      return out;
    },
    async remove(member) {
      await command(['ZREM', INBOX_KEY, member]);
    },
    async drop(member, unopened) {
      return Number(await command(['EVAL', DROP_SCRIPT, 2, INBOX_KEY, INBOX_LOST_KEY, member, unopened ? '1' : '0'])) === 1;
    },
    async takeLost(receipt) {
      const reply = (await command(
        evalCommand(TAKE_LOST_SCRIPT, { keys: { lostKey: INBOX_LOST_KEY, receiptKey: `${INBOX_LOST_KEY}:taken:${receipt}` }, args: { keepS: LOST_RECEIPT_S } }),
      )) as [string, string] | null;
      // Never read as none lost: a reply without the two counts is a store that did not answer.
      if (!Array.isArray(reply) || reply.length !== 2) throw new InboxStoreError('store answered no lost counts');
      const [dropped, unopened] = reply;
      return { dropped: Number(dropped), unopened: Number(unopened) };
    },
    async stats() {
      const checkedAt = now();
      const [size, oldest, expired, refused] = (await command(evalCommand(STATS_SCRIPT, { keys: KEYS, args: {} }))) as [string, string, string, string];
      return { size: Number(size), oldestAt: oldest === '' ? undefined : Number(oldest), expired: Number(expired), refused: Number(refused ?? 0), checkedAt };
    },
  };
}
