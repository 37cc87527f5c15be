/**
 * Messages other apps write. Another app's @mention or DM is not a turn
 * unless the operator lists it (AUTOHUB_ALLOW_BOTS); this app's own messages
 * never are. A thread where listed bots keep answering each other stops,
 * with one note, past BOT_LOOP.turns of their messages in BOT_LOOP.windowSeconds.
 *
 * Store cost: one command (an EVAL, the thread's tally) for each message of
 * a listed bot that reaches a listener; nothing for people's messages, nor
 * for bots that are not listed (dropped before any store call).
 */
import { botLoopKey, STORE_LIMITS } from '../store/index.js';
import type { SharedStore } from '../store/index.js';
import type { BotIdentity } from './thread.js';

/** AUTOHUB_ALLOW_BOTS: `*` (every other app), or the bot ids (`B...`) whose messages are turns. Empty: none. */
export type AllowBots = '*' | ReadonlySet<string>;

/** Who wrote a message: a person, this app, or another app (its `bot_id`, when Slack gave one). */
export type Author = { kind: 'person' } | { kind: 'self' } | { kind: 'bot'; botId: string | undefined };

/** The fields of a message event that say who wrote it (`@slack/types` MessageEvent, AppMentionEvent). */
export interface AuthoredEvent {
  user?: string | undefined;
  bot_id?: string | undefined;
  app_id?: string | undefined;
  subtype?: string | undefined;
  bot_profile?: { id?: string; app_id?: string } | undefined;
}

/**
 * Who wrote `event`. Another app's message also has a `bot_id`, so this app's
 * own is told by its `app_id` (the envelope's `api_app_id`), its `bot_id` or
 * its bot user (platform-facts: "compare app_id or the bot user"). Pure.
 */
export function authorOf(event: AuthoredEvent, me: BotIdentity): Author {
  const appId = event.app_id ?? event.bot_profile?.app_id;
  const botId = event.bot_id ?? event.bot_profile?.id;
  const own =
    (me.appId !== undefined && appId === me.appId) ||
    (me.botId !== undefined && botId === me.botId) ||
    (me.botUserId !== undefined && event.user === me.botUserId);
  if (own) return { kind: 'self' };
  if (botId !== undefined || event.subtype === 'bot_message') return { kind: 'bot', botId };
  return { kind: 'person' };
}

/** Whether a message by `author` is a turn: a person's always, this app's never, another app's when listed. Pure. */
export function isTurnOf(author: Author, allow: AllowBots): boolean {
  if (author.kind !== 'bot') return author.kind === 'person';
  if (allow === '*') return true;
  return author.botId !== undefined && allow.has(author.botId);
}

/** A bot id as Slack writes it (`B0123ABCD`). */
export const BOT_ID = /^B[A-Z0-9]{2,}$/;

/**
 * AUTOHUB_ALLOW_BOTS read: `*`, or bot ids separated by commas; unset or
 * blank, none. Returns the set, or the first part that is no bot id (for
 * the settings error). Pure.
 */
export function parseAllowBots(raw: string | undefined): AllowBots | { bad: string } {
  if (raw === undefined || raw.trim() === '') return new Set();
  if (raw.trim() === '*') return '*';
  const ids = raw.split(',').map((id) => id.trim());
  const bad = ids.find((id) => !BOT_ID.test(id));
  if (bad !== undefined) return { bad: bad === '' ? raw : bad };
  return new Set(ids);
}

/**
 * The loop bound (STORE_LIMITS, where the store's other bounds are): past `turns` messages of
 * listed bots in one thread within `windowSeconds` of the first, the thread stops (one note, then
 * silence until the window lapses).
 */
export const BOT_LOOP = Object.freeze({ turns: STORE_LIMITS.botLoopTurns, windowSeconds: STORE_LIMITS.botLoopWindowSeconds });

/** The note that ends a loop, posted once per window in the thread. */
export const BOT_LOOP_NOTE = `_(I am stopping here: bots have answered each other more than ${BOT_LOOP.turns} times in this thread in a few minutes. Mention me again to go on.)_`;

/** What a listed bot's message gets: an answer, the one note that stops the loop, or nothing. */
export type LoopVerdict = 'answer' | 'note' | 'quiet';

/**
 * From the thread's tally after this message (undefined: the store did not
 * answer, and the message is answered: a store away does not silence the
 * bots a person asked for; Slack's own limits end a loop then). Pure.
 */
export function loopVerdict(tally: number | undefined, turns: number = BOT_LOOP.turns): LoopVerdict {
  if (tally === undefined || tally <= turns) return 'answer';
  return tally === turns + 1 ? 'note' : 'quiet';
}

/** The thread tallies of listed bots' messages, in the shared store. */
export class BotLoops {
  constructor(private readonly o: { store: Pick<SharedStore, 'tally'>; bound?: { turns: number; windowSeconds: number } }) {}

  /** Count this message (`ts`: a second delivery of it counts once) in its thread's window, and say what it gets. */
  async verdict(where: { team: string | undefined; channel: string; threadTs: string; ts: string }): Promise<LoopVerdict> {
    const bound = this.o.bound ?? BOT_LOOP;
    const tally = await this.o.store.tally(botLoopKey(where.team, where.channel, where.threadTs), where.ts, bound.windowSeconds).catch(() => undefined);
    return loopVerdict(tally, bound.turns);
  }
}
