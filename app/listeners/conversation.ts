/** @mentions and direct messages: run the turn and reply in the thread. */
import type { App } from '@slack/bolt';
import type { Logger } from '../../lib/log/index.js';
import type { TurnContext } from '../../lib/receiver/index.js';
import { takeTurn, type TurnRequest } from '../turn.js';
import { checkThread, postReply, threadOf } from './reply.js';
import { streamReply } from './stream-reply.js';

interface MessageLike {
  text?: string;
  user?: string;
  channel: string;
  ts: string;
  thread_ts?: string;
}

/**
 * Direct-message subtypes that are a person writing (a file, a reply also
 * sent to the channel, ...): answered. Edits, deletions, joins and bots' own
 * messages are not.
 */
const NOT_A_PERSON = new Set(['message_changed', 'message_deleted', 'bot_message', 'channel_join', 'channel_leave', 'message_replied', 'ekm_access_denied']);

export function isPersonsDirectMessage(message: { channel_type?: string; subtype?: string; bot_id?: string }): boolean {
  if (message.channel_type !== 'im' || message.bot_id !== undefined) return false;
  return message.subtype === undefined || !NOT_A_PERSON.has(message.subtype);
}

/** The first line of a reply found by the catch-up sweep. */
export const LATE_NOTE = '_(Sorry, this answer comes late: I could not be reached when you wrote.)_';

export interface ConversationOptions {
  /** Whether Slack's window for a method is closed now (the rate-limit layer's word). */
  closed: (method: string) => boolean;
}

/** Conversations where Slack refused the thinking status once: not asked again. */
const noStatus = new Set<string>();

/** "is thinking..." in a DM's thread until the first chunk; where Slack refuses it, never asked again and never a failure. */
function thinking(client: Parameters<typeof postReply>[0], channel: string, threadTs: string, im: boolean): void {
  if (!im || noStatus.has(channel)) return;
  client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: 'is thinking...' }).catch(() => noStatus.add(channel));
}

async function answer(
  args: {
    event: MessageLike;
    body: { event_id?: string; autohub_catchup?: boolean; team_id?: string };
    context: Partial<TurnContext>;
    client: Parameters<typeof postReply>[0];
  },
  via: TurnRequest['via'],
  log: Logger,
  options: ConversationOptions,
): Promise<void> {
  const { event, body, context, client } = args;
  const eventId = body.event_id ?? 'unknown';
  const lease = context.autohubLease;
  const target = { channel: event.channel, threadTs: threadOf(event), eventId };
  // A taken-over turn, or a retry after an ambiguous failure, may have been
  // answered already (Slack posts cannot be fenced): the thread is the truth,
  // read before the turn runs, so a paid model call is not made twice.
  if (lease?.checkThreadFirst) {
    const thread = await checkThread(client, target, event.thread_ts === undefined);
    if (thread.reply) {
      await lease.finish(thread.reply);
      log.info('turn.already_replied', { eventId, ts: thread.reply });
      return;
    }
    if (thread.orphan && !lease.streamTs) {
      // Recorded in the lease like any stream of this turn, so the stream writer completes that message.
      log.info('turn.orphan_stream', { eventId, ts: thread.orphan });
      await lease.markStream(thread.orphan);
    }
  }
  thinking(client, event.channel, target.threadTs, via === 'dm');
  const started = Date.now();
  const reply = await takeTurn({
    text: event.text ?? '',
    user: event.user,
    channel: event.channel,
    via,
    copy: { role: context.autohubRole ?? 'hub', instance: context.autohubInstance ?? 'unknown' },
  });
  // Found by the catch-up sweep after an outage: say so, briefly.
  const late = body.autohub_catchup === true;
  if (typeof reply === 'string' && !lease?.streamTs) {
    // The commit point: from here this copy, and no other, may post.
    if (lease && !(await lease.commit())) {
      log.warn('turn.abandoned', { eventId, reason: 'lease lost before posting' });
      return;
    }
    const ts = await postReply(client, target, late ? `${LATE_NOTE}\n${reply}` : reply);
    await lease?.finish(ts ?? null);
    log.info('turn.replied', { eventId, via, claim: context.autohubClaim, ts, takeover: lease?.previousState, attempt: lease?.attempts });
    return;
  }
  // A turn whose message was started by a streamed run completes that message, whatever this run returns.
  const whole = typeof reply === 'string' ? once(reply) : reply;
  const chunks = late ? prepend(`${LATE_NOTE}\n`, whole) : whole;
  const stream = await streamReply(
    client,
    { ...target, recipientUser: event.user, recipientTeam: body.team_id },
    chunks,
    lease,
    { closed: options.closed },
  );
  if (!stream) {
    log.warn('turn.abandoned', { eventId, reason: 'lease lost before posting' });
    return;
  }
  await lease?.finish(stream.ts ?? null, { how: stream.how, chunks: stream.chunks, ms: Date.now() - started });
  log.info('turn.replied', {
    eventId, via, claim: context.autohubClaim, ts: stream.ts, takeover: lease?.previousState, attempt: lease?.attempts,
    stream: stream.how, chunks: stream.chunks, ms: Date.now() - started,
  });
}

async function* once(text: string): AsyncIterable<string> {
  yield text;
}

async function* prepend(first: string, rest: AsyncIterable<string>): AsyncIterable<string> {
  yield first;
  yield* rest;
}

export function registerConversation(app: App, log: Logger, options: ConversationOptions = { closed: () => false }): void {
  app.event('app_mention', async ({ event, body, context, client }) => {
    await answer({ event, body, context: context as Partial<TurnContext>, client }, 'mention', log, options);
  });

  app.message(async ({ message, body, context, client }) => {
    if (!isPersonsDirectMessage(message as { channel_type?: string; subtype?: string; bot_id?: string })) return;
    await answer(
      { event: message as MessageLike, body: body as { event_id?: string; autohub_catchup?: boolean; team_id?: string }, context: context as Partial<TurnContext>, client },
      'dm',
      log,
      options,
    );
  });
}
