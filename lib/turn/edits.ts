/**
 * An edited prompt (a module's `edits: 'answer'`): a person's edit of their message in a DM with the bot
 * arrives as `message` with `subtype: "message_changed"` (message.im), the message as it now reads in
 * `message`, with `edited: { user, ts }` (https://docs.slack.dev/reference/events/message/message_changed).
 * It is answered as a new message of the same thread, in the conversation's order (lib/conversation/key.ts
 * gives it the thread's place). Only DMs: an edited @mention in a channel sends no new `app_mention`, and
 * autohub does not subscribe to channels' messages. Pure.
 */
import type { MessageEvent } from './request.js';

/** The fields of a `message_changed` event read here. */
export interface ChangedEvent {
  type?: unknown;
  subtype?: unknown;
  channel?: unknown;
  channel_type?: unknown;
  message?: {
    type?: unknown;
    subtype?: unknown;
    user?: unknown;
    bot_id?: unknown;
    app_id?: unknown;
    text?: unknown;
    ts?: unknown;
    thread_ts?: unknown;
    edited?: { user?: unknown; ts?: unknown };
    files?: unknown;
    user_team?: unknown;
    team?: unknown;
  };
}

/** A person's edit: the message as it reads now, as a message event of its thread, and the edit's own ts (for its claim). */
export interface EditedPrompt {
  event: MessageEvent;
  editTs: string;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The edited message of `event` when it is a person editing their own message in a DM; undefined for
 * anything else: another subtype, an app's message (this bot's replies change as they stream and are
 * rewritten), an unfurl or a reaction's change (no `edited`), a message of another kind.
 */
export function editedPrompt(event: ChangedEvent): EditedPrompt | undefined {
  if (event.type !== 'message' || event.subtype !== 'message_changed') return undefined;
  const m = event.message;
  const channel = str(event.channel);
  const user = str(m?.user);
  const ts = str(m?.ts);
  const editTs = str(m?.edited?.ts);
  if (!m || !channel || !user || !ts || !editTs || m.bot_id !== undefined || m.subtype !== undefined || typeof m.text !== 'string') return undefined;
  if (str(m.edited?.user) !== undefined && m.edited?.user !== user) return undefined;
  const direct = event.channel_type === 'im' || (event.channel_type === undefined && channel.startsWith('D'));
  if (!direct) return undefined;
  const thread = str(m.thread_ts);
  return {
    editTs,
    event: {
      type: 'message',
      text: m.text,
      user,
      channel,
      channel_type: 'im',
      ts,
      ...(thread && thread !== ts ? { thread_ts: thread } : {}),
      ...(str(m.user_team) ? { user_team: str(m.user_team) } : {}),
      ...(str(m.team) ? { team: str(m.team) } : {}),
      ...(m.files !== undefined ? { files: m.files } : {}),
    },
  };
}
