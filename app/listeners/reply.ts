/**
 * Posting a turn's reply: in the thread, carrying the delivery's event id in
 * message metadata so any reply can be traced to the delivery it answers.
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

/**
 * The ts of a reply already in the thread that answers `eventId`, if any: a
 * taker-over whose dead owner had reached `posting` looks before it posts.
 */
export async function findReply(client: WebClient, target: ReplyTarget): Promise<string | undefined> {
  const result = await client.conversations.replies({
    channel: target.channel,
    ts: target.threadTs,
    include_all_metadata: true,
    limit: 200,
  });
  const found = result.messages?.find((m) => {
    const metadata = m.metadata as { event_type?: string; event_payload?: { event_id?: unknown } } | undefined;
    return metadata?.event_type === TURN_EVENT_TYPE && metadata.event_payload?.event_id === target.eventId;
  });
  return found?.ts;
}
