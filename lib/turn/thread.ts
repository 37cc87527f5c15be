/**
 * What a taker-over, or a retry after an ambiguous failure, finds in the
 * thread before it runs the turn: Slack posts cannot be fenced, so the thread
 * is the truth. Every page is read (conversations.replies, 1,000 a call, Tier
 * 3), however long the thread.
 */
import type { WebClient } from '@slack/web-api';
import { partOf } from './parts.js';

export interface ReplyTarget {
  channel: string;
  /** The event's `thread_ts` when it has one, else its `ts`. */
  threadTs: string;
  eventId: string;
}

/** Who this app is in the messages Slack gives back: another app's message also has a `bot_id`. */
export interface BotIdentity {
  appId?: string | undefined;
  botId?: string | undefined;
  botUserId?: string | undefined;
}

export interface ThreadCheck {
  /** The reply's first message, when the whole reply is in the thread (its last message says so): nothing more to do. */
  reply?: string;
  /** Messages of an unfinished reply of this turn, in order (by part): complete them, never add a second reply. */
  parts?: string[];
  /**
   * A streamed reply left open by a copy that died between chat.startStream's
   * answer and recording its ts (metadata goes on only at the stop): the one
   * message, by this app and without metadata, in a thread that holds nothing
   * else but the mention itself. Only then can it be nobody else's.
   */
  orphan?: string;
}

/**
 * Whether a run of a turn may find it answered already, and reads its thread first: a taken-over
 * turn or a retry after an ambiguous failure (its lease says so), or one kept and run again after
 * a stop (`autohub_recovered`). Slack posts cannot be fenced, so its owner may have written.
 */
export function mayBeAnswered(lease: { checkThreadFirst?: boolean } | undefined, body: { autohub_recovered?: unknown }): boolean {
  return lease?.checkThreadFirst === true || body.autohub_recovered === true;
}

type ThreadMessage = { ts?: string; bot_id?: string; app_id?: string; user?: string; metadata?: unknown };

/** Whether a message read back from Slack is this app's own. */
export function isOwnMessage(m: ThreadMessage, me: BotIdentity): boolean {
  if (m.app_id !== undefined && me.appId !== undefined) return m.app_id === me.appId;
  if (m.bot_id !== undefined && me.botId !== undefined) return m.bot_id === me.botId;
  return m.user !== undefined && me.botUserId !== undefined && m.user === me.botUserId;
}

/** A cursor seen twice would loop for ever: Slack never sends one, but a broken proxy might. */
const MAX_PAGES = 100_000;

/**
 * With one turn at a time per thread (lib/conversation), an open message of
 * this app without metadata, written after the message this turn answers,
 * can only be this turn's (the turns before it have ended, with metadata on
 * their messages; the ones after it wait), however long the thread: `after`
 * is that message's ts.
 */
export interface OrderedThread {
  after: string;
}

export async function checkThread(
  client: Pick<WebClient, 'conversations'>,
  target: ReplyTarget,
  me: BotIdentity,
  mentionIsRoot = false,
  ordered?: OrderedThread,
): Promise<ThreadCheck> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  const others: ThreadMessage[] = [];
  const parts = new Map<number, string>();
  let final: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.conversations.replies({
      channel: target.channel,
      ts: target.threadTs,
      include_all_metadata: true,
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    for (const m of (result.messages ?? []) as ThreadMessage[]) {
      if (!m.ts || m.ts === target.threadTs) continue;
      const part = partOf(m);
      if (part === undefined) {
        others.push(m);
        continue;
      }
      if (part.event_id !== target.eventId || part.note) continue;
      if (!parts.has(part.part)) parts.set(part.part, m.ts);
      if (part.final) final = m.ts;
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!result.has_more || !cursor || seen.has(cursor)) break;
    seen.add(cursor);
  }
  if (final !== undefined) return { reply: parts.get(0) ?? final };
  if (parts.size > 0) {
    const found = [...parts].sort(([a], [b]) => a - b).map(([, ts]) => ts);
    // The next message's stream started but its ts never reached the lease: in the mention's own thread, it is ours.
    const last = Number(found[found.length - 1]);
    const open = mentionIsRoot ? others.filter((m) => m.metadata === undefined && isOwnMessage(m, me) && Number(m.ts) > last).map((m) => m.ts!) : [];
    return { parts: [...found, ...open.slice(0, 1)] };
  }
  const only = others.length === 1 ? others[0]! : undefined;
  if (mentionIsRoot && only?.ts && only.metadata === undefined && isOwnMessage(only, me)) return { orphan: only.ts };
  if (ordered) {
    const open = others.filter((m) => m.ts && m.metadata === undefined && isOwnMessage(m, me) && Number(m.ts) > Number(ordered.after));
    if (open.length > 0) return { orphan: open[open.length - 1]!.ts! };
  }
  return {};
}

/**
 * checkThread for an answer posted at the top level (a schedule's): the
 * channel's messages since the slot (`sinceTs`, conversations.history, Tier
 * 3, 200 a page), read for this turn's metadata. The posts a dead owner made
 * are found by their parts; nothing without metadata is taken for the
 * answer (a top-level answer is posted, never streamed, so it always has some).
 */
export async function checkTopLevel(client: Pick<WebClient, 'conversations' | 'users'>, target: ReplyTarget, sinceTs: string): Promise<ThreadCheck> {
  const channel = isUserId(target.channel) ? await imWith(client, target.channel) : target.channel;
  // No DM with the person yet: nothing was posted to them.
  if (channel === undefined) return {};
  let cursor: string | undefined;
  const seen = new Set<string>();
  const parts = new Map<number, string>();
  let final: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.conversations.history({
      channel,
      oldest: sinceTs,
      include_all_metadata: true,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    for (const m of (result.messages ?? []) as ThreadMessage[]) {
      const part = m.ts ? partOf(m) : undefined;
      if (!part || part.event_id !== target.eventId || part.note) continue;
      if (!parts.has(part.part)) parts.set(part.part, m.ts!);
      if (part.final) final = m.ts;
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!result.has_more || !cursor || seen.has(cursor)) break;
    seen.add(cursor);
  }
  if (final !== undefined) return { reply: parts.get(0) ?? final };
  if (parts.size > 0) return { parts: [...parts].sort(([a], [b]) => a - b).map(([, ts]) => ts) };
  return {};
}

/** A user id (a DM schedule's target), not a conversation's. */
const isUserId = (id: string) => /^[UW][A-Z0-9]+$/.test(id);

/** The bot's DM with `user` (users.conversations, im:read, 200 a page: Slack refuses over 999), or undefined when it has none. */
async function imWith(client: Pick<WebClient, 'users'>, user: string): Promise<string | undefined> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.users.conversations({ types: 'im', limit: 200, ...(cursor ? { cursor } : {}) });
    const im = (result.channels ?? []).find((c) => c.user === user);
    if (im?.id) return im.id;
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor || seen.has(cursor)) return undefined;
    seen.add(cursor);
  }
  return undefined;
}
