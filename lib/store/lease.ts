/**
 * Leases: a claim that a live copy can take over when its owner dies, and
 * that a failed turn hands back for a retry. The record under the delivery's
 * event key goes `claimed` -> (`posting`) -> `done`, or -> `retry` -> taken
 * again, or -> `dead` (a dead letter). It carries a fencing token that grows
 * with each takeover and keeps the delivery's body while the turn is live.
 *
 * Defaults, against a user who waits for an answer and, after ~30 s, assumes
 * the bot is broken:
 *   lease 10 s, renewed every 3 s in one request for all of a copy's turns;
 *   a lease is given up only when renewals have failed for longer than it
 *   could still be alive (so two or three failed renewals are survived);
 *   with a peer to watch (AUTOHUB_PEER_URL), a dead owner's turns are taken
 *   over about lease + peer check + one look = 10 + 5 + 1 = 16 s after it died;
 *   without one, within lease + the idle look interval (10 s + 120 s).
 */

export interface LeaseSettings {
  /** @default 10000 */
  leaseMs: number;
  /** @default 3000 */
  renewMs: number;
  /** The longest gap between two looks at the store for lapsed leases. @default 120000 */
  reaperMs: number;
}

export const DEFAULT_LEASE: LeaseSettings = { leaseMs: 10_000, renewMs: 3_000, reaperMs: 120_000 };

/** How often, and for how long, a turn that failed for a transient reason is tried again. */
export interface RetryPolicy {
  /** Runs of one turn, the first included. @default 4 */
  attempts: number;
  /** From the first claim, the time within which every retry must start. @default 600000 */
  windowMs: number;
  /** The pause before the first retry; each later one is `factor` times longer. @default 2000 */
  firstDelayMs: number;
  /** @default 4 */
  factor: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, windowMs: 600_000, firstDelayMs: 2_000, factor: 4 };

/** The pause before the retry that follows run number `attempt` (1-based): 2 s, 8 s, 32 s, ... */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return Math.round(policy.firstDelayMs * policy.factor ** Math.max(0, attempt - 1));
}

/**
 * Whether a failed turn gets another run or becomes a dead letter. Pure; the
 * Redis script makes the same decision atomically on Redis's clock.
 */
export function releaseVerdict(input: {
  attempts: number;
  firstAt: number;
  now: number;
  delayMs: number;
  policy: RetryPolicy;
  free?: boolean;
}): 'retry' | 'dead' {
  const { attempts, firstAt, now, delayMs, policy } = input;
  if (!input.free && attempts >= policy.attempts) return 'dead';
  return now + delayMs - firstAt > policy.windowMs ? 'dead' : 'retry';
}

/**
 * Whether a lapsed lease whose owner died (or froze past it) is taken over or
 * dead-lettered: the dead owner's run counted like any other, so a turn that
 * kills every copy that runs it ends within `policy.attempts` runs and the
 * retry window. Pure; the look script makes the same decision on Redis's clock.
 */
export function lapsedVerdict(input: { attempts: number; firstAt: number; now: number; policy: RetryPolicy }): 'take' | 'dead' {
  const { attempts, firstAt, now, policy } = input;
  return attempts >= policy.attempts || now - firstAt > policy.windowMs ? 'dead' : 'take';
}

/** The dead letter's reason when its owners kept dying, as a format (the look script fills it in too). */
export const OWNER_DIED_FORMAT = 'owner died %d times';

export function ownerDiedReason(deaths: number): string {
  return OWNER_DIED_FORMAT.replace('%d', String(deaths));
}

export type LeaseState = 'claimed' | 'posting' | 'retry' | 'done' | 'dead' | 'dropped';

/** How a turn's end (or a restore) came back. `lost`: another copy holds the turn now. */
export type EndReply = 'ok' | 'lost' | 'unreachable';

/**
 * What a renewal, commit or stream mark came back with. `missing`: the store
 * has no record of the turn at all (FLUSHALL, or Upstash evicting the key from
 * a full database): nobody else holds it, and its owner writes it again (`restore`).
 */
export type LeaseReply = EndReply | 'missing';

/** What a restore writes besides the claim itself: how far the turn had got. */
/** A dead letter as listed: no body. */
export interface DeadLetter {
  key: string;
  eventId: string;
  channel: string | null;
  reason: string;
  attempts: number;
  at: string;
}

export interface RestoreDetail {
  /** Runs so far, this one included. @default 1 */
  attempts?: number;
  /** The message a streamed reply of this turn started, so a taker-over completes it. */
  streamTs?: string;
}

/** What handing a failed turn back came to (`missing`: the store has no record of it, see LeaseReply). */
export type ReleaseReply = 'retry' | 'dead' | 'lost' | 'missing' | 'unreachable';

/** A turn taken from the lease set: its owner died, it was released for a retry, or it is replayed. */
export interface Takeover {
  key: string;
  token: number;
  /** The state it was in: `retry` after a clean refusal is the only one that needs no look at the thread first. */
  state: 'claimed' | 'posting' | 'retry' | 'dead';
  body: string;
  /** Runs so far, this one included. */
  attempts: number;
  /** The last failure may have posted (reset, timeout, 5xx). */
  ambiguous: boolean;
  /** The ts of the message this turn started streaming, if it did: complete that one, never add a second. */
  streamTs?: string;
}

/** One look at the store: the turns taken, when the next lease falls due (ms from now), and how long ago any copy last claimed a delivery. */
export interface Look {
  taken: Takeover[];
  nextDueMs: number | null;
  /** null when no claim is on record. */
  sinceServedMs: number | null;
  /** The oldest gap in serving longer than Slack's retries, not swept yet (times as ms ago); null when none. */
  gap: Gap | null;
  /** Lapsed leases dead-lettered by this look (their owners kept dying): this copy alone reports them. */
  dead: DeadLetter[];
  /** Leases put back into a lost lease index by this look (0 when the index was whole). */
  reindexed: number;
  /** The store's clock at the look (Redis TIME, ms since the epoch): the catch-up's windows are on it, never on a copy's. */
  /** Upstash commands the copies have sent this month, as the looks added them up (Upstash only). */
  monthCommands?: number;
  nowMs?: number;
}

/** A silence in serving: from the last claim before it to the first after, as ms before the look. */
export interface Gap {
  /** As stored, to drop it once swept. */
  raw: string;
  startedMsAgo: number;
  endedMsAgo: number;
}

/** The look script's gap reply, `gap:<from>:<to>:<now>` (Redis ms), or '' for none. */
export function parseGap(reply: unknown): Gap | null {
  const m = typeof reply === 'string' ? /^gap:(\d+):(\d+):(\d+)$/.exec(reply) : null;
  if (!m) return null;
  const [from, to, now] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return { raw: `${m[1]}:${m[2]}`, startedMsAgo: Math.max(0, now - from), endedMsAgo: Math.max(0, now - to) };
}

/** The stored record, as written by a claim and rewritten by the lease scripts. */
export interface LeaseRecord {
  instance: string;
  role: string;
  at: string;
  nonce: string;
  state: LeaseState;
  token: number;
  body?: string;
  reply_ts?: string | null;
  attempts?: number;
  first_at?: number;
  reason?: string;
  ambiguous?: boolean;
  dead_at?: number;
  event_id?: string;
  channel?: string;
  /** The ts of the message a streamed reply started. */
  stream?: string;
  /** How many characters of it Slack has confirmed (recorded with the renewals). */
  stream_confirmed?: number;
  /** Lapsed leases taken over or dead-lettered: how often a copy died (or froze) running this turn. */
  deaths?: number;
  /** 1 while a look's take has not been acknowledged by its taker's renewal (LOOK_SCRIPT). */
  unacked?: number;
  /** 1 while a dead letter a look made has not been told to the owner: every look reports it (LOOK_SCRIPT). */
  untold?: number;
}

export function parseLeaseRecord(stored: unknown): LeaseRecord | undefined {
  if (typeof stored !== 'string') return undefined;
  try {
    const record = JSON.parse(stored) as Partial<LeaseRecord>;
    return typeof record.token === 'number' && typeof record.state === 'string' ? (record as LeaseRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `token` still owns a live turn in `record`. */
export function owns(record: LeaseRecord | undefined, token: number): record is LeaseRecord {
  return record !== undefined && record.token === token && (record.state === 'claimed' || record.state === 'posting');
}

/**
 * A dead letter as listed, from its stored record (no body) and its key: the
 * event id and channel it was claimed with, why and when it died. Pure; both
 * stores list dead letters through it.
 */
export function deadLetterFrom(r: Partial<Record<keyof LeaseRecord, unknown>>, key: string): DeadLetter {
  return {
    key,
    eventId: typeof r.event_id === 'string' ? r.event_id : (key.split(':').pop() ?? key),
    channel: typeof r.channel === 'string' ? r.channel : null,
    reason: typeof r.reason === 'string' ? r.reason : 'unknown',
    attempts: typeof r.attempts === 'number' ? r.attempts : 1,
    at: new Date(typeof r.dead_at === 'number' ? r.dead_at : 0).toISOString(),
  };
}

/** The scripts' dead letter: its record as JSON with its `key` added. */
export function parseDeadLetter(item: unknown): DeadLetter | undefined {
  try {
    const r = JSON.parse(String(item)) as Record<string, unknown>;
    return typeof r.key === 'string' ? deadLetterFrom(r, r.key) : undefined;
  } catch {
    return undefined;
  }
}

export function parseTakeover(item: unknown): Takeover | undefined {
  try {
    const t = JSON.parse(String(item)) as Partial<Takeover>;
    if (typeof t.key !== 'string' || typeof t.body !== 'string' || typeof t.token !== 'number') return undefined;
    return {
      key: t.key,
      token: t.token,
      state: t.state === 'posting' || t.state === 'retry' || t.state === 'dead' ? t.state : 'claimed',
      body: t.body,
      attempts: typeof t.attempts === 'number' ? t.attempts : 1,
      ambiguous: t.ambiguous === true,
      ...(typeof (t as { stream?: unknown }).stream === 'string' && (t as { stream: string }).stream !== ''
        ? { streamTs: (t as { stream: string }).stream }
        : {}),
    };
  } catch {
    return undefined;
  }
}
