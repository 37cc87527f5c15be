/**
 * A streamed reply: one message in the thread, written as the turn writes it
 * (chat.startStream, chat.appendStream, chat.stopStream), that survives its
 * copy dying halfway.
 *
 *   - The commit point comes before chat.startStream, like a post's; the
 *     stream's ts goes into the lease the moment Slack answers, so a
 *     taker-over completes *this* message (stop it if still open, then
 *     chat.update it with the new, complete answer) instead of adding one.
 *   - Appends are batched: at most one a second (chat.appendStream is Tier 4,
 *     about 100 a minute), whatever the model's chunk rate; the rest goes with
 *     the stop.
 *   - chat.startStream and chat.stopStream are Tier 2 (about 20 a minute):
 *     while their window is closed the reply goes out as one chat.postMessage.
 *   - A stream Slack closed (about 5 minutes, `message_not_in_streaming_state`)
 *     is finished with chat.update, never left hanging.
 *   - The delivery's event id goes in as metadata at the stop or the update
 *     (Slack takes metadata only then), so the thread check finds it.
 */
import type { WebClient } from '@slack/web-api';
import type { TurnLease } from '../../lib/receiver/index.js';
import { postReply, TURN_EVENT_TYPE, type ReplyTarget } from './reply.js';

export interface StreamTarget extends ReplyTarget {
  /** Outside a DM Slack wants the recipient's user and team ids. */
  recipientUser?: string | undefined;
  recipientTeam?: string | undefined;
}

export interface StreamOptions {
  /** Whether Slack's window for a method is closed now (the rate-limit layer's word). */
  closed: (method: string) => boolean;
  /** The least time between two appends. @default 1000 */
  appendEveryMs?: number;
  now?: () => number;
}

/** What the stream came to, for logs and the status page. */
export interface StreamOutcome {
  ts: string | undefined;
  how: 'streamed' | 'posted' | 'completed' | 'updated';
  chunks: number;
}

function errorCode(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

const metadataFor = (target: ReplyTarget) => ({ event_type: TURN_EVENT_TYPE, event_payload: { event_id: target.eventId } });

async function collect(chunks: AsyncIterable<string>): Promise<{ text: string; count: number }> {
  let text = '';
  let count = 0;
  for await (const chunk of chunks) {
    text += chunk;
    count += 1;
  }
  return { text, count };
}

/** Make `ts` hold `text` for good: stop it if Slack still has it open, then replace its text, with the metadata. */
async function complete(client: WebClient, target: ReplyTarget, ts: string, text: string): Promise<void> {
  await client.chat.stopStream({ channel: target.channel, ts }).catch((error: unknown) => {
    // Already stopped, or closed by Slack: either way it can now be updated.
    if (errorCode(error) !== 'message_not_in_streaming_state') throw error;
  });
  await client.chat.update({ channel: target.channel, ts, text, metadata: metadataFor(target) });
}

/**
 * Write `chunks` into the thread. Returns the reply's ts, or undefined when
 * the lease was lost before anything was written (nothing is posted then).
 */
export async function streamReply(
  client: WebClient,
  target: StreamTarget,
  chunks: AsyncIterable<string>,
  lease: TurnLease | undefined,
  options: StreamOptions,
): Promise<StreamOutcome | undefined> {
  const now = options.now ?? Date.now;
  const every = options.appendEveryMs ?? 1000;
  // A run after a takeover or a retry: this turn already has its message. Complete that one.
  if (lease?.streamTs) {
    const { text, count } = await collect(chunks);
    if (!(await lease.commit())) return undefined;
    await complete(client, target, lease.streamTs, text);
    return { ts: lease.streamTs, how: 'completed', chunks: count };
  }
  // Slack's window for starting or stopping a stream is closed: one post, the same metadata.
  if (options.closed('chat.startStream') || options.closed('chat.stopStream')) {
    const { text, count } = await collect(chunks);
    if (lease && !(await lease.commit())) return undefined;
    return { ts: await postReply(client, target, text), how: 'posted', chunks: count };
  }

  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (lease && !(await lease.commit())) return undefined;
  const started = await client.chat.startStream({
    channel: target.channel,
    thread_ts: target.threadTs,
    markdown_text: first.done ? '' : first.value,
    ...(target.recipientUser ? { recipient_user_id: target.recipientUser } : {}),
    ...(target.recipientTeam ? { recipient_team_id: target.recipientTeam } : {}),
  });
  const ts = started.ts;
  if (!ts) throw new Error('chat.startStream answered without a ts');
  await lease?.markStream(ts);
  lease?.confirmed(first.done ? 0 : first.value.length);

  let full = first.done ? '' : first.value;
  let pending = '';
  let count = first.done ? 0 : 1;
  let lastAppend = now();
  let expired = false;
  for (let next = first.done ? first : await iterator.next(); !next.done; next = await iterator.next()) {
    full += next.value;
    pending += next.value;
    count += 1;
    if (expired || now() - lastAppend < every) continue;
    try {
      await client.chat.appendStream({ channel: target.channel, ts, markdown_text: pending });
      pending = '';
      lastAppend = now();
      lease?.confirmed(full.length);
    } catch (error) {
      if (errorCode(error) !== 'message_not_in_streaming_state') throw error;
      // Slack closed the stream (it lives about 5 minutes): the rest goes in with an update.
      expired = true;
    }
  }
  if (expired) {
    await complete(client, target, ts, full);
    return { ts, how: 'updated', chunks: count };
  }
  try {
    await client.chat.stopStream({ channel: target.channel, ts, ...(pending ? { markdown_text: pending } : {}), metadata: metadataFor(target) });
  } catch (error) {
    if (errorCode(error) !== 'message_not_in_streaming_state') throw error;
    await complete(client, target, ts, full);
    return { ts, how: 'updated', chunks: count };
  }
  return { ts, how: 'streamed', chunks: count };
}
