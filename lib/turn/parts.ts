/**
 * A long answer in several messages, within Slack's limits, and the metadata
 * that ties each message to the turn it answers. Pure.
 *
 * Slack refuses (`msg_too_long`) a `markdown_text` over 12,000 characters in
 * any one call (chat.postMessage, chat.startStream, chat.appendStream,
 * chat.stopStream, chat.update) and a chat.update `text` over 4,000
 * (https://docs.slack.dev/reference/methods/chat.update,
 * https://docs.slack.dev/reference/methods/chat.startStream). A message of
 * the reply is at most PART_CHARS long, so a taker-over can always rewrite it
 * whole with one chat.update; a longer answer rolls over into the next message
 * in the thread.
 */
import { cutIn, splitText as splitMessages } from './split.js';

export const TURN_EVENT_TYPE = 'autohub_turn';

/** The most a message of a reply holds: one chat.update's `markdown_text`. */
export const PART_CHARS = 12_000;

/** What each message of a reply carries in its metadata. */
export interface PartPayload {
  event_id: string;
  /** 0-based index of this message in the reply. */
  part: number;
  /** The reply's last message: once it is in the thread, the turn is answered. */
  final: boolean;
  /** A note to the person (retrying, could not answer), not part of the answer. */
  note?: true;
}

/** Message metadata as Slack takes it: a payload of plain values. */
export interface TurnMetadata {
  event_type: string;
  event_payload: Record<string, string | number | boolean>;
}

export function partMetadata(eventId: string, part: number, final: boolean): TurnMetadata {
  return { event_type: TURN_EVENT_TYPE, event_payload: { event_id: eventId, part, final } };
}

export function noteMetadata(eventId: string): TurnMetadata {
  return { event_type: TURN_EVENT_TYPE, event_payload: { event_id: eventId, part: -1, final: false, note: true } };
}

/** A message's turn metadata, read back from Slack; undefined when it has none of ours. */
export function partOf(message: { metadata?: unknown }): (PartPayload & { legacy: boolean }) | undefined {
  const m = message.metadata as { event_type?: unknown; event_payload?: Record<string, unknown> } | undefined;
  if (m?.event_type !== TURN_EVENT_TYPE || typeof m.event_payload?.event_id !== 'string') return undefined;
  const p = m.event_payload;
  // A reply written before replies had parts is one message, and final.
  if (typeof p.part !== 'number') return { event_id: p.event_id as string, part: 0, final: true, legacy: true };
  return { event_id: p.event_id as string, part: p.part, final: p.final === true, ...(p.note === true ? { note: true as const } : {}), legacy: false };
}

/**
 * Where to cut `text` so the first piece is at most `max` characters (with
 * room to close a code block left open there): lib/turn/split.ts says how.
 */
export function cutAt(text: string, max = PART_CHARS): number {
  return text.length <= max ? text.length : cutIn(text, max).at;
}

/**
 * `text` in messages of at most `max` characters, in order, nothing lost: a
 * message that ends inside a code block closes it and the next reopens it
 * (an empty text is one empty piece).
 */
export function splitText(text: string, max = PART_CHARS): string[] {
  return splitMessages(text, max);
}
