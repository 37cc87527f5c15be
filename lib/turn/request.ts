/**
 * What a turn is asked, built once from the event Slack sent (live, found by
 * the catch-up sweep, or stored and taken over): the same fields whatever the
 * origin. Pure but for the files' download closure.
 */
import { stripMention } from './mention.js';
import { turnFiles } from './files.js';
import { firingOf } from '../schedule/envelope.js';
import type { CopyRole, TurnEvent, TurnRequest } from './types.js';

export interface MessageEvent {
  type?: string;
  text?: string;
  user?: string;
  channel: string;
  channel_type?: string;
  ts: string;
  thread_ts?: string;
  /** The person's own team (Slack Connect: not the workspace the event came through). */
  user_team?: string;
  team?: string;
  files?: unknown;
  /** For Slack's Real-time Search API (assistant.search.context), on message events. */
  action_token?: string;
}

export interface EnvelopeFields {
  event_id?: string;
  team_id?: string;
  api_app_id?: string;
  /** Set by the catch-up sweep on what it found. */
  autohub_catchup?: boolean;
  /** A turn a stopping copy journaled mid-run: it may have posted, so the thread is read first. */
  autohub_recovered?: boolean;
  /** A schedule's firing (lib/schedule/envelope.ts). */
  autohub_schedule?: unknown;
  /** A turn resumed by an answer to its ctx.ask (lib/ask). */
  autohub_resume?: unknown;
}

/** A direct message, whatever event brought it: `message.im`, or `app_mention` (no channel_type) in a DM's channel. */
export function isDirect(event: Pick<MessageEvent, 'channel' | 'channel_type'>): boolean {
  return event.channel_type === 'im' || (event.channel_type === undefined && event.channel.startsWith('D'));
}

export function threadOf(event: { ts: string; thread_ts?: string }): string {
  return event.thread_ts ?? event.ts;
}

export function turnRequest(
  event: MessageEvent,
  body: EnvelopeFields,
  o: { copy: { role: CopyRole; instance: string }; botUserId?: string | undefined; botToken?: string | undefined; fetch?: typeof fetch },
): TurnRequest {
  const firing = firingOf(body);
  if (firing) {
    // A schedule's turn: nobody wrote; its answer is a new message at the top level.
    return {
      text: '',
      user: event.user,
      channel: event.channel,
      threadTs: '',
      ts: event.ts,
      eventId: body.event_id ?? 'unknown',
      via: 'schedule',
      late: firing.late,
      files: [],
      copy: o.copy,
      schedule: { name: firing.name, slot: firing.slot },
    };
  }
  // A turn resumed by an answer (lib/ask) is the same turn: its own event id, not the answer's.
  const resumed = (body.autohub_resume as { eventId?: unknown } | undefined)?.eventId;
  return {
    text: stripMention(event.text ?? '', o.botUserId),
    user: event.user,
    channel: event.channel,
    threadTs: threadOf(event),
    ts: event.ts,
    eventId: typeof resumed === 'string' ? resumed : (body.event_id ?? 'unknown'),
    via: isDirect(event) ? 'dm' : 'mention',
    late: body.autohub_catchup === true,
    files: turnFiles(event, { token: o.botToken ?? '', ...(o.fetch ? { fetch: o.fetch } : {}) }),
    copy: o.copy,
    actionToken: typeof event.action_token === 'string' && event.action_token !== '' ? event.action_token : undefined,
    // The envelope's event as Slack sent it (a stored body read back by a taker-over is the same JSON).
    event: event as unknown as TurnEvent,
  };
}
