/**
 * What a verified Slack request is, and the keys it is claimed under. Pure.
 * Throws RequestInvalidError (400, or 415 for a content type Slack never sends).
 */
import { eventKey, messageKey, triggerKey } from '../store/index.js';
import { RequestInvalidError } from '../errors/index.js';
import { HINT_EVENT_TYPE, PROBE_EVENT_TYPE } from '../synthetic/index.js';
import { editedPrompt, type ChangedEvent } from '../turn/edits.js';

type Json = Record<string, unknown>;

/** autohub's own event type for `npm run verify`: claimed like any event, no turn runs. */
export { PROBE_EVENT_TYPE };

/**
 * Slack telling the app it is dropping its events: sent when the app would
 * receive more than 30,000 events in an hour from one workspace, with no
 * inner event (https://api.slack.com/events/app_rate_limited, also
 * https://docs.slack.dev/reference/events/app_rate_limited/).
 * `minuteRateLimited` is the epoch second of the minute the limit began.
 */
export interface AppRateLimited {
  kind: 'app_rate_limited';
  teamId: string | undefined;
  apiAppId: string | undefined;
  minuteRateLimited: number | undefined;
}

export type Delivery =
  | { kind: 'ssl_check' }
  | AppRateLimited
  | { kind: 'probe'; eventId: string; claimKeys: string[] }
  /** The edge: a turn's lease is live at the other copy (lib/synthetic). Never claimed. */
  | { kind: 'hint'; eventId: string; claimKeys: [] }
  | { kind: 'url_verification'; challenge: string }
  | { kind: 'event'; body: Json; eventId: string; teamId: string | undefined; claimKeys: string[] }
  | { kind: 'command'; body: Json; claimKeys: string[] }
  | { kind: 'interactive'; body: Json; claimKeys: string[] };

/** The one event type a message's key is taken under, whichever event carried it. */
const MESSAGE_KEY_TYPE = 'message';

/** Channel message subtypes that are a message written (a file shared, a reply also sent, another app's post). */
const WRITTEN_IN_CHANNEL = new Set([undefined, 'file_share', 'thread_broadcast', 'bot_message']);

/**
 * Events that carry a message a turn answers, and so can arrive under two
 * event ids: an @mention anywhere, a message in a DM, and a message written
 * in a channel (an app subscribed to message.channels, as `followUps` is):
 * its listener answers it when it mentions the bot (lib/turn/follow-ups.ts),
 * so the message and its `app_mention` twin are one key, answered once.
 */
function answersAMessage(event: Json): boolean {
  if (event.type === 'app_mention') return true;
  if (event.type !== 'message') return false;
  if (event.channel_type === 'im' || (event.channel_type === undefined && String(event.channel ?? '').startsWith('D'))) return true;
  return WRITTEN_IN_CHANNEL.has(event.subtype as string | undefined);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function parseJson(raw: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new RequestInvalidError('body is not valid JSON');
  }
  if (!isObject(parsed)) throw new RequestInvalidError('body is not a JSON object');
  return parsed;
}

/** What a JSON envelope, parsed already, is (a stored body read back by a taker-over included). */
export function eventDelivery(body: Json): Delivery {
  if (body.type === 'url_verification') {
    const challenge = text(body.challenge);
    if (!challenge) throw new RequestInvalidError('url_verification without a challenge');
    return { kind: 'url_verification', challenge };
  }
  if (body.type === 'app_rate_limited') {
    const minute = body.minute_rate_limited;
    return {
      kind: 'app_rate_limited',
      teamId: text(body.team_id),
      apiAppId: text(body.api_app_id),
      minuteRateLimited: typeof minute === 'number' && Number.isFinite(minute) ? minute : undefined,
    };
  }
  if (body.type !== 'event_callback') throw new RequestInvalidError(`unsupported envelope type ${JSON.stringify(body.type)}`);
  const eventId = text(body.event_id);
  if (!eventId) throw new RequestInvalidError('event_callback without an event_id');
  if (!isObject(body.event)) throw new RequestInvalidError('event_callback without an event');
  const teamId = text(body.team_id);
  const claimKeys = [eventKey(teamId, eventId)];
  const event = body.event;
  if (event.type === PROBE_EVENT_TYPE) return { kind: 'probe', eventId, claimKeys };
  if (event.type === HINT_EVENT_TYPE) return { kind: 'hint', eventId, claimKeys: [] };
  const channel = text(event.channel);
  const ts = text(event.ts);
  // An edit or a deletion is a new event about an old message, not the message again.
  const aboutAnother = event.subtype === 'message_changed' || event.subtype === 'message_deleted';
  if (answersAMessage(event) && channel && ts && !aboutAnother) {
    // One key per message, whatever event brought it: an @mention typed in a DM arrives as `app_mention`
    // and as `message` (channel_type im) under two event ids, in either order: without this key it is answered twice.
    claimKeys.push(messageKey(teamId, MESSAGE_KEY_TYPE, channel, ts));
  }
  // A person's edit of a DM (answered with `edits: 'answer'`): one key per edit, whatever event id brings it.
  const edited = channel && event.subtype === 'message_changed' ? editedPrompt(event as ChangedEvent) : undefined;
  if (edited) claimKeys.push(messageKey(teamId, EDIT_KEY_TYPE, channel!, `${edited.event.ts}-${edited.editTs}`));
  return { kind: 'event', body, eventId, teamId, claimKeys };
}

/** The event type an edit's key is taken under: never the message's own (`message`), which its first answer holds. */
const EDIT_KEY_TYPE = 'message_changed';

function teamOf(body: Json): string | undefined {
  return text(body.team_id) ?? (isObject(body.team) ? text(body.team.id) : undefined);
}

function formBody(raw: string): Delivery {
  const form = new URLSearchParams(raw);
  if (form.get('ssl_check') === '1') return { kind: 'ssl_check' };
  const payload = form.get('payload');
  if (payload !== null) {
    const body = parseJson(payload);
    if (!text(body.type)) throw new RequestInvalidError('interactivity payload without a type');
    return formDelivery('interactive', body);
  }
  const command = form.get('command');
  if (command === null) throw new RequestInvalidError('form body is neither a command, a payload nor an ssl_check');
  return formDelivery('command', Object.fromEntries(form.entries()));
}

/** A slash command or an interaction, parsed already (a stored body read back included): claimed under its trigger_id. */
export function formDelivery(kind: 'command' | 'interactive', body: Json): Extract<Delivery, { kind: 'command' | 'interactive' }> {
  const trigger = text(body.trigger_id);
  return { kind, body, claimKeys: trigger ? [triggerKey(teamOf(body), trigger)] : [] };
}

export function parseDelivery(contentType: string | null | undefined, raw: string): Delivery {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return eventDelivery(parseJson(raw));
  if (type === 'application/x-www-form-urlencoded') return formBody(raw);
  throw new RequestInvalidError(`unsupported content type ${JSON.stringify(type || 'none')}`, 415);
}
