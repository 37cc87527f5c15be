/**
 * Which conversation a delivery belongs to: the thread its reply goes in
 * (team, channel, thread ts). Pure.
 *
 * autohub answers every message in a thread (a top-level mention or DM opens
 * its own), so a thread is the conversation: a follow-up written in it waits
 * for the turn still running there, and two top-level messages, each
 * answered in a thread of its own, do not wait for each other (as
 * ctx.history() treats them: lib/turn/history.ts).
 */
import { editedPrompt, type ChangedEvent } from '../turn/edits.js';
import { threadOf } from '../turn/request.js';

/** Events that are a person writing to the bot: the only ones that take a place in a conversation. */
const CONVERSING = new Set(['app_mention', 'message']);

/**
 * `message` subtypes that are no person writing (as app/listeners/conversation.ts
 * answers none of them): an edit, a deletion, a join, a bot's post.
 */
const NOT_A_PERSON = new Set(['message_changed', 'message_deleted', 'bot_message', 'channel_join', 'channel_leave', 'message_replied', 'ekm_access_denied']);

/** The conversation of an Events API body, or undefined for anything that is not a message to the bot. */
export function conversationOf(body: Record<string, unknown>): string | undefined {
  const event = body.event as { type?: unknown; subtype?: unknown; bot_id?: unknown; channel?: unknown; ts?: unknown; thread_ts?: unknown } | undefined;
  if (!event || typeof event.type !== 'string' || !CONVERSING.has(event.type)) return undefined;
  // Slack sends message events for the bot's own replies too (message.im in a DM; Bolt's ignoreSelf drops them,
  // but only later, in processEvent: https://docs.slack.dev/tools/bolt-js/reference/variables/ignoreSelf,
  // slackapi/bolt-python#307). Taking a place, one would wait in its own thread, count against its bound (a
  // person's follow-up skipped for it, the note posted to the bot's own message) and, with `interrupt`, stop the very turn that posted it.
  // A person's edit of a DM (`edits: 'answer'` answers it) waits in the thread of the message it edits, as a follow-up would.
  const edited = event.subtype === 'message_changed' ? editedPrompt(event as ChangedEvent) : undefined;
  if (edited) return placeOf(body, edited.event.channel, threadOf(edited.event));
  if (event.type === 'message' && typeof event.subtype === 'string' && NOT_A_PERSON.has(event.subtype)) return undefined;
  // Nor does any app's message, an @mention included: one not listed in AUTOHUB_ALLOW_BOTS is no turn
  // (app/listeners/conversation.ts), and a flood of them would skip a person's waiting message past the
  // bound; a listed one runs beside the thread's turns, bounded by its own loop tally (lib/turn/bots.ts).
  if (event.bot_id !== undefined) return undefined;
  if (typeof event.channel !== 'string' || typeof event.ts !== 'string') return undefined;
  const thread = threadOf({ ts: event.ts, ...(typeof event.thread_ts === 'string' ? { thread_ts: event.thread_ts } : {}) });
  return placeOf(body, event.channel, thread);
}

function placeOf(body: Record<string, unknown>, channel: string, thread: string): string {
  const team = typeof body.team_id === 'string' ? body.team_id : '-';
  return [team, channel, thread].map((p) => p.replace(/[:\s]/g, '_')).join(':');
}
