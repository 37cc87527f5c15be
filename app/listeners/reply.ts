/**
 * Posting a turn's reply: in the thread, carrying the delivery's event id in
 * message metadata so any reply can be traced to the delivery it answers,
 * and finding such a reply again.
 */
import type { WebClient } from '@slack/web-api';

export const TURN_EVENT_TYPE = 'autohub_turn';

export interface ReplyTarget {
  channel: string;
  /** The event's `thread_ts` when it has one, else its `ts`. */
  threadTs: string;
  eventId: string;
}

export function threadOf(event: { ts: string; thread_ts?: string }): string {
  return event.thread_ts ?? event.ts;
}

export async function postReply(client: WebClient, target: ReplyTarget, text: string): Promise<string | undefined> {
  const result = await client.chat.postMessage({
    channel: target.channel,
    thread_ts: target.threadTs,
    text,
    metadata: { event_type: TURN_EVENT_TYPE, event_payload: { event_id: target.eventId } },
  });
  return result.ts;
}

/** Whether a message is this turn's reply, by its metadata. */
export function answers(message: { metadata?: unknown }, eventId: string): boolean {
  const metadata = message.metadata as { event_type?: string; event_payload?: { event_id?: unknown } } | undefined;
  return metadata?.event_type === TURN_EVENT_TYPE && metadata.event_payload?.event_id === eventId;
}

/** Pages read at most: 20 x 200 replies. A thread longer than 4,000 replies is read that far. */
const MAX_PAGES = 20;

/** What a taker-over finds in the thread before it runs the turn. */
export interface ThreadCheck {
  /** A reply that answers the delivery (by its metadata): nothing more to do. */
  reply?: string;
  /**
   * A streamed reply left open by a copy that died between chat.startStream's
   * answer and recording its ts (metadata goes on only at the stop): the one
   * message, by a bot and without metadata, in a thread that holds nothing else
   * but the mention itself. Only then can it be nobody else's. Completed, not
   * written again.
   */
  orphan?: string;
}

type ThreadMessage = { ts?: string; bot_id?: string; metadata?: unknown };

/**
 * Read the thread (every page, `cursor`) for this delivery's reply: a
 * taker-over, or a retry after an ambiguous failure, looks before it runs the
 * turn. `mentionIsRoot`: the thread is the mention's own (it started it).
 */
export async function checkThread(client: WebClient, target: ReplyTarget, mentionIsRoot = false): Promise<ThreadCheck> {
  let cursor: string | undefined;
  const others: ThreadMessage[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.conversations.replies({
      channel: target.channel,
      ts: target.threadTs,
      include_all_metadata: true,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    const found = result.messages?.find((m) => answers(m, target.eventId));
    if (found?.ts) return { reply: found.ts };
    for (const m of (result.messages ?? []) as ThreadMessage[]) if (m.ts !== target.threadTs) others.push(m);
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!result.has_more || !cursor) break;
  }
  const only = others.length === 1 ? others[0]! : undefined;
  if (mentionIsRoot && only?.ts && only.bot_id !== undefined && only.metadata === undefined) return { orphan: only.ts };
  return {};
}

/** The ts of a reply already in the thread that answers `eventId`, if any. */
export async function findReply(client: WebClient, target: ReplyTarget): Promise<string | undefined> {
  return (await checkThread(client, target)).reply;
}
