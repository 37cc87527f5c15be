/**
 * @mentions and direct messages: each is a turn, answered through its handle (lib/turn).
 * Another app's message is a turn only when AUTOHUB_ALLOW_BOTS lists it, and a thread where
 * listed bots keep answering each other stops with one note (lib/turn/bots.ts); this app's own
 * messages never are.
 */
import type { App } from '@slack/bolt';
import type { Logger } from '../../lib/log/index.js';
import type { AutohubContext } from '../turn-context.js';
import {
  authorOf,
  channelMessageKind,
  editedPrompt,
  isDirect,
  isTurnOf,
  threadOf,
  type AllowBots,
  type AuthoredEvent,
  type ChangedEvent,
  type BotLoops,
  type EnvelopeFields,
  type FollowUpThreads,
  type MessageEvent,
} from '../../lib/turn/index.js';
import type { TakeTurn } from '../../lib/bot/index.js';

export { LATE_NOTE } from '../../lib/turn/index.js';

/**
 * Direct-message subtypes that are no message written (an edit, a deletion, a
 * join): never a turn. Everything else (a file, a reply also sent to the
 * channel, another app's `bot_message`) is, as its author allows.
 */
const NOT_A_MESSAGE = new Set(['message_changed', 'message_deleted', 'channel_join', 'channel_leave', 'message_replied', 'ekm_access_denied']);

/** A message written in a DM with the bot, by anyone: who wrote it decides the rest (isTurnOf). */
export function isDirectMessage(message: { channel_type?: string; subtype?: string }): boolean {
  return message.channel_type === 'im' && (message.subtype === undefined || !NOT_A_MESSAGE.has(message.subtype));
}

/** A person's direct message (no app's): what the DM path answered before other apps could be listed. */
export function isPersonsDirectMessage(message: { channel_type?: string; subtype?: string; bot_id?: string }): boolean {
  return isDirectMessage(message) && message.bot_id === undefined && message.subtype !== 'bot_message';
}

export interface ConversationOptions {
  /** The bot's turn (AUTOHUB_TURN, or the demo turn). */
  turn: TakeTurn;
  /** AUTOHUB_ALLOW_BOTS. @default none: only people's messages are turns */
  allowBots?: AllowBots | undefined;
  /** The loop bound for listed bots' messages; without it (no store at hand) they are answered unbounded. */
  loops?: Pick<BotLoops, 'verdict'> | undefined;
  /** The module's `edits`: `answer` answers a person's edit of a DM as a new message of its thread. @default 'ignore' */
  edits?: 'answer' | 'ignore' | undefined;
  /**
   * The module's `followUps`, over the shared store: a person's reply with no mention in a channel thread
   * the bot answered in lately is a turn (lib/turn/follow-ups.ts). @default off
   */
  followUps?: FollowUpThreads | undefined;
}

type Args = { event: unknown; body: unknown; context: AutohubContext & { botUserId?: string; botId?: string; botToken?: string } };

export function registerConversation(app: App<AutohubContext>, log: Logger, options: ConversationOptions): void {
  const allow = options.allowBots ?? new Set<string>();
  const answer = async ({ event, body, context }: Args): Promise<void> => {
    const handle = context.autohubTurn;
    if (!handle) {
      log.error('turn.no_handle', { detail: 'a message reached a listener outside the turn runner' });
      return;
    }
    const message = event as MessageEvent & AuthoredEvent;
    const envelope = body as EnvelopeFields & { event_id?: string };
    const author = authorOf(message, { appId: envelope.api_app_id, botId: context.botId, botUserId: context.botUserId });
    // Not a turn: the run's end (lib/runner/turn-ends.ts) finishes the claim with no reply.
    if (!isTurnOf(author, allow)) {
      if (author.kind === 'bot') log.info('turn.other_bot', { eventId: envelope.event_id, botId: author.botId, detail: 'not in AUTOHUB_ALLOW_BOTS' });
      return;
    }
    if (author.kind === 'bot' && options.loops) {
      const where = { team: envelope.team_id, channel: message.channel, threadTs: threadOf(message), ts: message.ts };
      const verdict = await options.loops.verdict(where);
      if (verdict !== 'answer') {
        log.warn('turn.bot_loop', { eventId: envelope.event_id, botId: author.botId, verdict });
        if (verdict === 'note') await handle.answerNote(body as Record<string, unknown>, handle.note('botLoop'));
        return;
      }
    }
    // The thread is open for follow-ups from now (the mark written while the turn runs, before it ends: a reply
    // waiting behind this turn in the conversation's order reads it only after).
    const where = { team: envelope.team_id, channel: message.channel, event: message };
    const marked = options.followUps && !isDirect(message) ? options.followUps.answered(where) : undefined;
    await handle.answer({ event: message, body: envelope, context }, options.turn);
    await marked;
  };
  /** A `message` outside a DM (only with channels' message events subscribed): its mention's twin, or a follow-up. */
  const channelMessage = async (args: Args): Promise<void> => {
    const message = args.event as MessageEvent & AuthoredEvent;
    const kind = channelMessageKind(message, args.context.botUserId);
    // The same message's app_mention is claimed under the same message key: whichever of the two wins answers it.
    if (kind === 'mention') return answer(args);
    if (kind !== 'reply' || !options.followUps) return;
    const envelope = args.body as EnvelopeFields;
    const author = authorOf(message, { appId: envelope.api_app_id, botId: args.context.botId, botUserId: args.context.botUserId });
    // Only a person's reply: this app's own messages and other apps' (listed or not) never open a turn without a mention.
    if (author.kind !== 'person') return;
    const open = await options.followUps.isOpen({ team: envelope.team_id, channel: message.channel, event: message });
    if (open === undefined) log.warn('turn.follow_up_unsure', { eventId: envelope.event_id, detail: 'the store did not answer: the reply is not answered' });
    if (open) await answer(args);
  };
  app.event('app_mention', async (args) => answer(args));
  app.message(async (args) => {
    const message = args.message as { channel_type?: string; subtype?: string; channel: string };
    if (message.subtype === 'message_changed') {
      // An edited prompt: answered as the message now reads, as a new message of its thread (lib/turn/edits.ts).
      const edited = options.edits === 'answer' ? editedPrompt(message as ChangedEvent) : undefined;
      if (edited) await answer({ ...args, event: edited.event });
      return;
    }
    if (!isDirect(message)) return channelMessage(args);
    if (!isDirectMessage(message)) return;
    await answer(args);
  });
}
