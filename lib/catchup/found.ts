/**
 * What the catch-up sweep answers, and as which delivery. Pure.
 *
 * Exactly what the live listeners (app/listeners/conversation.ts) answer,
 * no more: the app is subscribed to `app_mention` and `message.im` only, so
 *
 * - in a DM, every message a person writes, at the top level or in a thread
 *   (`message` with `channel_type: "im"`);
 * - anywhere else (channels, private channels, group DMs), a message that
 *   mentions the bot, at the top level or in any thread (`app_mention`,
 *   with the `thread_ts` of its thread). A follow-up in the bot's own
 *   thread that does not mention it is never delivered, so not answered.
 *
 * Each found message becomes the envelope Slack would have sent, so it is
 * claimed under the message key a live delivery of it uses (team + channel
 * + ts, lib/delivery/delivery.ts) and answered in its thread.
 */
import type { SweepWindow } from './window.js';

/** A message as conversations.history and conversations.replies return it. */
export interface SlackMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  thread_ts?: string;
  reply_count?: number;
  reply_users?: string[];
  reply_users_count?: number;
  latest_reply?: string;
  /** The person's own team (Slack Connect) and the workspace's: a streamed reply outside a DM names the first. */
  user_team?: string;
  team?: string;
  files?: unknown;
}

export interface Conversation {
  id: string;
  im: boolean;
}

/** Who the bot is (auth.test). */
export interface Me {
  user: string | undefined;
  bot: string | undefined;
  team: string | undefined;
}

/** Subtypes that are not a person writing: the live listener's and the ones only a channel has. */
const NOT_A_PERSON = new Set([
  'bot_message',
  'message_changed',
  'message_deleted',
  'message_replied',
  'ekm_access_denied',
  'channel_join',
  'channel_leave',
  'channel_topic',
  'channel_purpose',
  'channel_name',
  'group_join',
  'group_leave',
]);

/** Slack's `ts` in ms since the epoch: Slack's own clock, the one the sweep's windows are in. */
export function tsMs(ts: string | undefined): number {
  return ts === undefined ? Number.NaN : Number(ts) * 1000;
}

export function inWindow(ts: string | undefined, window: SweepWindow): boolean {
  const at = tsMs(ts);
  return at >= window.from && at <= window.to;
}

/** Whether the live path answers `m` (see the file's head). */
export function answeredLive(m: SlackMessage, conversation: Conversation, me: Me): boolean {
  if (!m.ts || m.bot_id || (m.subtype && NOT_A_PERSON.has(m.subtype)) || (me.user && m.user === me.user)) return false;
  return conversation.im || (me.user !== undefined && (m.text ?? '').includes(`<@${me.user}>`));
}

const isMe = (id: string, me: Me) => id === me.user || id === me.bot;

/**
 * A top-level message whose own thread holds a reply by the bot: answered
 * before the outage (Slack's `reply_users` sometimes names the bot by its
 * bot id). Not said of a reply in a thread: the bot's reply there may
 * answer another message of the thread; its claim says.
 */
export function repliedInThread(m: SlackMessage, me: Me): boolean {
  const ownThread = m.thread_ts === undefined || m.thread_ts === m.ts;
  return ownThread && (m.reply_users ?? []).some((id) => isMe(id, me));
}

/**
 * Whether a parent's thread may hold a message the sweep answers: its latest
 * reply is at or after `fromMs`, and someone besides the bot replied in it
 * (a thread with only the bot's replies holds nothing to answer; when Slack
 * lists fewer repliers than it counts, it is read).
 */
export function threadToRead(m: SlackMessage, fromMs: number, me: Me): boolean {
  if (!m.ts || !(m.reply_count && m.reply_count > 0) || !(tsMs(m.latest_reply) >= fromMs)) return false;
  const users = m.reply_users;
  if (!users || users.length === 0 || (m.reply_users_count !== undefined && m.reply_users_count > users.length)) return true;
  return users.some((id) => !isMe(id, me));
}

/** The delivery Slack would have sent for `m`, marked as caught up (the reply says it comes late). */
export function envelope(team: string | undefined, conversation: Conversation, m: SlackMessage): Record<string, unknown> {
  const ts = m.ts!;
  return {
    type: 'event_callback',
    ...(team ? { team_id: team } : {}),
    event_id: `Ev-catchup-${conversation.id}-${ts}`,
    event_time: Math.floor(Number(ts)),
    autohub_catchup: true,
    event: {
      type: conversation.im ? 'message' : 'app_mention',
      channel: conversation.id,
      ts,
      event_ts: ts,
      ...(m.user ? { user: m.user } : {}),
      text: m.text ?? '',
      ...(m.thread_ts && m.thread_ts !== ts ? { thread_ts: m.thread_ts } : {}),
      ...(m.subtype ? { subtype: m.subtype } : {}),
      ...(m.user_team ? { user_team: m.user_team } : {}),
      ...(m.team ? { team: m.team } : {}),
      ...(m.files !== undefined ? { files: m.files } : {}),
      ...(conversation.im ? { channel_type: 'im' } : {}),
    },
  };
}
