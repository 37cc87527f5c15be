/** @mentions and direct messages: run the turn and reply in the thread. */
import type { App } from '@slack/bolt';
import type { Logger } from '../../lib/log/index.js';
import type { TurnContext } from '../../lib/receiver/index.js';
import { takeTurn, type TurnRequest } from '../turn.js';
import { findReply, postReply, threadOf } from './reply.js';

interface MessageLike {
  text?: string;
  user?: string;
  channel: string;
  ts: string;
  thread_ts?: string;
}

async function answer(
  args: { event: MessageLike; body: { event_id?: string }; context: Partial<TurnContext>; client: Parameters<typeof postReply>[0] },
  via: TurnRequest['via'],
  log: Logger,
): Promise<void> {
  const { event, body, context, client } = args;
  const eventId = body.event_id ?? 'unknown';
  const lease = context.autohubLease;
  const target = { channel: event.channel, threadTs: threadOf(event), eventId };
  const reply = await takeTurn({
    text: event.text ?? '',
    user: event.user,
    channel: event.channel,
    via,
    copy: { role: context.autohubRole ?? 'hub', instance: context.autohubInstance ?? 'unknown' },
  });
  // A taken-over turn may have been answered already: by an owner that posted
  // before it died (Slack posts cannot be fenced), or by a copy that ran it
  // fail-open while a claim it had given up on landed late. The thread is the truth.
  if (lease?.previousState !== undefined) {
    const existing = await findReply(client, target);
    if (existing) {
      await lease.finish(existing);
      log.info('turn.already_replied', { eventId, ts: existing });
      return;
    }
  }
  // The commit point: from here this copy, and no other, may post.
  if (lease && !(await lease.commit())) {
    log.warn('turn.abandoned', { eventId, reason: 'lease lost before posting' });
    return;
  }
  const ts = await postReply(client, target, reply);
  await lease?.finish(ts ?? null);
  log.info('turn.replied', { eventId, via, claim: context.autohubClaim, ts, takeover: lease?.previousState });
}

export function registerConversation(app: App, log: Logger): void {
  app.event('app_mention', async ({ event, body, context, client }) => {
    await answer({ event, body, context: context as Partial<TurnContext>, client }, 'mention', log);
  });

  app.message(async ({ message, body, context, client }) => {
    // Only a person's plain direct message: no edits, joins, or bots (the bot's own replies included).
    if (message.channel_type !== 'im' || message.subtype !== undefined || 'bot_id' in message) return;
    await answer({ event: message, body: body as { event_id?: string }, context: context as Partial<TurnContext>, client }, 'dm', log);
  });
}
