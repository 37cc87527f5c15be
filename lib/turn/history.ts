/**
 * `ctx.history()`: the thread before the message a turn answers, oldest
 * first, as a model wants it: this bot's messages as the assistant's,
 * everyone else's as the user's, the bot's mention taken out.
 *
 * One `conversations.replies` call per 1,000 messages (Tier 3 for internal
 * apps), through the client's rate-limit layer; `latest` asks Slack for the
 * messages before this one only, and the reader stops at the first later one
 * it sees all the same.
 *
 * A message that is not in a thread (`threadTs === beforeTs`: a channel
 * mention or a DM written at the top level) has no history: autohub answers
 * every such message in its own thread, so each is a conversation of its own,
 * and the earlier top-level messages of a DM are other conversations. That
 * costs no call.
 */
import type { WebClient } from '@slack/web-api';
import type { HistoryMessage } from './types.js';
import { stripMention } from './mention.js';
import { partOf } from './parts.js';

export interface HistoryOptions {
  channel: string;
  threadTs: string;
  /** The message being answered: only what came before it. */
  beforeTs: string;
  /** This bot's own user, app and bot ids: a message with any of them is the assistant's. */
  botUserId?: string | undefined;
  botId?: string | undefined;
  appId?: string | undefined;
  /**
   * This turn's event id: the bot's answers to earlier messages that were
   * written after this message (while it waited for its conversation's
   * earlier turn, lib/conversation) are history too; its own reply (an
   * earlier run's) and the bot's notes are not. Then the whole thread is
   * read (no `latest`). Absent: only what came before the message.
   */
  answersAfter?: string | undefined;
  /** Pages of 1,000 read at most. @default 10 (10,000 messages) */
  maxPages?: number;
}

/** What is not a person or a bot writing: left out. */
const NOT_WRITTEN = new Set(['channel_join', 'channel_leave', 'group_join', 'group_leave', 'tombstone', 'message_deleted', 'message_changed']);

interface ReadMessage {
  ts?: string;
  user?: string;
  text?: string;
  subtype?: string;
  bot_id?: string;
  app_id?: string;
  metadata?: unknown;
}

/** Slack's ts ("1700000000.000123") in order, exactly: as numbers they would lose the microseconds. */
export function compareTs(a: string, b: string): number {
  const [as = '', af = ''] = a.split('.');
  const [bs = '', bf = ''] = b.split('.');
  const seconds = as.padStart(12, '0').localeCompare(bs.padStart(12, '0'));
  return seconds !== 0 ? seconds : af.padEnd(6, '0').localeCompare(bf.padEnd(6, '0'));
}

/** A message of this bot that answers another turn than `eventId` (not a note, not this turn's own reply). */
function isAnswerOfAnother(m: ReadMessage, eventId: string | undefined): boolean {
  if (eventId === undefined) return false;
  const part = partOf(m);
  return part === undefined || (part.event_id !== eventId && part.note !== true);
}

export async function readHistory(client: Pick<WebClient, 'conversations'>, o: HistoryOptions): Promise<HistoryMessage[]> {
  if (o.threadTs === o.beforeTs) return [];
  const mine = (m: ReadMessage) =>
    (o.appId !== undefined && m.app_id === o.appId) || (o.botId !== undefined && m.bot_id === o.botId) || (o.botUserId !== undefined && m.user === o.botUserId);
  const out: HistoryMessage[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < (o.maxPages ?? 10); page++) {
    const result = await client.conversations.replies({
      channel: o.channel,
      ts: o.threadTs,
      limit: 1000,
      ...(o.answersAfter === undefined ? { latest: o.beforeTs, inclusive: false } : { include_all_metadata: true }),
      ...(cursor ? { cursor } : {}),
    });
    let past = false;
    for (const m of (result.messages ?? []) as ReadMessage[]) {
      if (typeof m.ts !== 'string') continue;
      if (compareTs(m.ts, o.beforeTs) >= 0) {
        past = o.answersAfter === undefined;
        if (!(compareTs(m.ts, o.beforeTs) > 0 && mine(m) && isAnswerOfAnother(m, o.answersAfter))) continue;
      }
      if (m.subtype !== undefined && NOT_WRITTEN.has(m.subtype)) continue;
      out.push({ role: mine(m) ? 'assistant' : 'user', user: m.user, text: stripMention(m.text ?? '', o.botUserId), ts: m.ts });
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor || past) break;
  }
  return out.sort((a, b) => compareTs(a.ts, b.ts));
}
