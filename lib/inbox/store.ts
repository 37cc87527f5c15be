/**
 * The inbox in the shared store (Upstash REST, plain `fetch`, so the Worker
 * and Node run the same code): one sorted set, `autohub:inbox`, each member
 * a sealed kept delivery, scored by its arrival time.
 *
 * Keeping is one command (a script: refuse when the set holds `maxCount`, or
 * its oldest is older than `maxAgeMs`; else add). Nothing here runs on the
 * normal path: the edge keeps only what no copy accepted.
 */

export const INBOX_KEY = 'autohub:inbox';

/** Refuses past the bounds (0), else adds (1). KEYS[1] the set; ARGV: member, arrival ms, max count, max age ms. */
export const KEEP_SCRIPT = `local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[3]) then return 0 end
if n > 0 then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if tonumber(ARGV[2]) - tonumber(oldest[2]) > tonumber(ARGV[4]) then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1`;

export interface InboxStoreSettings {
  url: string;
  token: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

export interface KeptMember {
  member: string;
  arrivedAt: number;
}

export interface InboxStats {
  size: number;
  /** The oldest entry's arrival (ms), when any. */
  oldestAt: number | undefined;
}

/** The narrow port the edge and the copies use. */
export interface InboxStore {
  /** 'kept', or 'full' past the bounds; rejects when the store did not answer within `timeoutMs`. */
  keep(member: string, arrivedAt: number, bounds: { maxCount: number; maxAgeMs: number }, timeoutMs: number): Promise<'kept' | 'full'>;
  /** The oldest `count` entries. */
  take(count: number): Promise<KeptMember[]>;
  remove(member: string): Promise<void>;
  stats(): Promise<InboxStats>;
  /** True for the first caller of `key` within `ttlMs` (SET NX): a note told once across the copies. */
  once(key: string, ttlMs: number): Promise<boolean>;
}

export class InboxStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InboxStoreError';
  }
}

export function createInboxStore(settings: InboxStoreSettings): InboxStore {
  const send = settings.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
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
      const result = await command(['EVAL', KEEP_SCRIPT, 1, INBOX_KEY, member, arrivedAt, bounds.maxCount, bounds.maxAgeMs], timeoutMs);
      return Number(result) === 1 ? 'kept' : 'full';
    },
    async take(count) {
      const flat = (await command(['ZRANGE', INBOX_KEY, 0, count - 1, 'WITHSCORES'])) as string[] | null;
      const out: KeptMember[] = [];
      for (let i = 0; flat && i + 1 < flat.length; i += 2) out.push({ member: flat[i]!, arrivedAt: Number(flat[i + 1]) });
      return out;
    },
    async remove(member) {
      await command(['ZREM', INBOX_KEY, member]);
    },
    async once(key, ttlMs) {
      return (await command(['SET', `${INBOX_KEY}:once:${key}`, '1', 'NX', 'PX', ttlMs])) === 'OK';
    },
    async stats() {
      const size = Number(await command(['ZCARD', INBOX_KEY]));
      if (size === 0) return { size, oldestAt: undefined };
      const first = (await command(['ZRANGE', INBOX_KEY, 0, 0, 'WITHSCORES'])) as string[];
      return { size, oldestAt: first[1] === undefined ? undefined : Number(first[1]) };
    },
  };
}
