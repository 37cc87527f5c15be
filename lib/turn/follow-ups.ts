/**
 * Follow-ups, opt-in (a module's `followUps: { minutes }`): a person's reply with no @mention in a channel
 * thread the bot answered in within `minutes` is a turn of that thread. Slack sends such a reply only as a
 * `message` event (message.channels, message.groups, message.mpim: https://docs.slack.dev/reference/events/message.channels),
 * which `npm run setup` subscribes to only when the module asks for follow-ups (app/cli/setup-files.ts).
 *
 * A thread is open for follow-ups while its mark lives in the shared store: written (one SET with EX) by
 * every turn the bot takes in a channel thread, read (one GET) by each reply that could be a follow-up, on
 * whichever copy it reaches, after the thread's earlier turns have ended (the conversation's order,
 * lib/conversation: the read comes after the mark of the turn ahead of it). A reply that also mentions the
 * bot arrives as `app_mention` and as `message`; both are claimed under one message key
 * (lib/delivery/delivery.ts), and whichever wins answers it as a mention.
 *
 * Store cost with it on: every message in a channel the bot is in is claimed (Slack sends them all); a
 * thread reply with no mention adds one GET; every turn in a channel adds one SET. Off, nothing.
 */
import { followUpKey } from '../store/index.js';
import type { Records } from '../store/index.js';
import { isDirect, threadOf, type MessageEvent } from './request.js';

/** A module's `followUps`: replies in a thread the bot answered within `minutes` are answered without a mention. */
export interface FollowUps {
  /** How long after the bot's last answer in a thread a reply there is still a follow-up, in minutes (1 to 1,440). */
  minutes: number;
}

/** The longest a thread stays open: a day, under the 48 h a delivery's keys live (lib/store/limits.ts). */
export const FOLLOW_UP_MAX_MINUTES = 1440;

/** `followUps` as exported, checked: the value, or what was expected (for the start-up error). Pure. */
export function parseFollowUps(value: unknown): { ok: true; value: FollowUps | undefined } | { ok: false; expected: string } {
  if (value === undefined) return { ok: true, value: undefined };
  const minutes = (value as { minutes?: unknown } | null)?.minutes;
  if (typeof value !== 'object' || value === null || !Number.isInteger(minutes) || (minutes as number) < 1 || (minutes as number) > FOLLOW_UP_MAX_MINUTES) {
    const got = typeof value === 'object' && value !== null ? `{ minutes: ${JSON.stringify(minutes) ?? 'undefined'} }` : JSON.stringify(value);
    return {
      ok: false,
      expected: `followUps, when exported, to be { minutes } with minutes a whole number from 1 to ${FOLLOW_UP_MAX_MINUTES}, but it is ${got}`,
    };
  }
  return { ok: true, value: { minutes: minutes as number } };
}

/** Message subtypes that are still a person writing (a file shared, a reply also sent to the channel). */
const WRITTEN = new Set([undefined, 'file_share', 'thread_broadcast']);

/**
 * What a `message` event outside a DM is to the bot: `mention` (its text mentions the bot: the twin of an
 * `app_mention`, answered as one), `reply` (a reply in a thread, with no mention: a follow-up if its thread
 * is open), `none` (a top-level message, an edit, a join). Who wrote it is not looked at here. Pure.
 */
export function channelMessageKind(event: MessageEvent & { subtype?: string | undefined }, botUserId: string | undefined): 'mention' | 'reply' | 'none' {
  if (event.type !== 'message' || isDirect(event) || !WRITTEN.has(event.subtype)) return 'none';
  if (botUserId && (event.text ?? '').includes(`<@${botUserId}>`)) return 'mention';
  return event.thread_ts !== undefined && event.thread_ts !== event.ts ? 'reply' : 'none';
}

/** Where a turn or a reply is: its team, channel and thread (the thread's ts). */
export interface ThreadWhere {
  team: string | undefined;
  channel: string;
  event: Pick<MessageEvent, 'ts' | 'thread_ts'>;
}

/** The threads open for follow-ups, in the shared store (so a reply reaching the other copy finds them). */
export class FollowUpThreads {
  constructor(private readonly o: { store: Pick<Records, 'read' | 'note'>; followUps: FollowUps }) {}

  get minutes(): number {
    return this.o.followUps.minutes;
  }

  /** The bot is answering in this thread: replies in it are follow-ups for `minutes` from now. One command; never throws. */
  answered(where: ThreadWhere): Promise<void> {
    return this.o.store.note(this.#key(where), where.event.ts, this.o.followUps.minutes * 60).catch(() => undefined);
  }

  /** Whether the bot answered in this thread within `minutes`; undefined when the store could not answer. One command. */
  async isOpen(where: ThreadWhere): Promise<boolean | undefined> {
    const mark = await this.o.store.read(this.#key(where)).catch(() => undefined);
    return mark === undefined ? undefined : mark !== null;
  }

  #key(where: ThreadWhere): string {
    return followUpKey(where.team, where.channel, threadOf(where.event));
  }
}
