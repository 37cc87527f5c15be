/** @mentions and direct messages: each is a turn, answered through its handle (lib/turn). */
import type { App } from '@slack/bolt';
import type { Logger } from '../../lib/log/index.js';
import type { AutohubContext } from '../turn-context.js';
import { isDirect, type EnvelopeFields, type MessageEvent, type TakeTurn } from '../../lib/turn/index.js';

export { LATE_NOTE } from '../../lib/turn/index.js';

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

export interface ConversationOptions {
  /** The bot's turn (AUTOHUB_TURN, or the demo turn). */
  turn: TakeTurn;
}

type Args = { event: unknown; body: unknown; context: AutohubContext & { botUserId?: string; botId?: string; botToken?: string } };

export function registerConversation(app: App<AutohubContext>, log: Logger, options: ConversationOptions): void {
  const answer = async ({ event, body, context }: Args): Promise<void> => {
    const handle = context.autohubTurn;
    if (!handle) {
      log.error('turn.no_handle', { detail: 'a message reached a listener outside the turn runner' });
      return;
    }
    await handle.answer({ event: event as MessageEvent, body: body as EnvelopeFields, context }, options.turn);
  };
  app.event('app_mention', async (args) => answer(args));
  app.message(async (args) => {
    const message = args.message as { channel_type?: string; subtype?: string; bot_id?: string; channel: string };
    if (!isPersonsDirectMessage(message) || !isDirect(message)) return;
    await answer(args);
  });
}
