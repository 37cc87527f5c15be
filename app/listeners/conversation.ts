/** @mentions and direct messages: run the turn and reply in the thread. */
import type { App } from '@slack/bolt';
import type { Logger } from '../../lib/log/index.js';
import type { TurnContext } from '../../lib/receiver/index.js';
import { takeTurn, type TurnRequest } from '../turn.js';
import { postReply, threadOf } from './reply.js';

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
  const reply = await takeTurn({
    text: event.text ?? '',
    user: event.user,
    channel: event.channel,
    via,
    copy: { role: context.autohubRole ?? 'hub', instance: context.autohubInstance ?? 'unknown' },
  });
  const ts = await postReply(client, { channel: event.channel, threadTs: threadOf(event), eventId }, reply);
  log.info('turn.replied', { eventId, via, claim: context.autohubClaim, ts });
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
