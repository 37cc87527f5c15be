/**
 * What a claim stores with an event's lease, so a taker-over can run the turn
 * again: the delivery as JSON, without Slack's legacy verification `token`.
 * Written here once, for the claim (`leaseRequest`) and for the write again
 * of a record the store forgot (the runner's restore).
 */
import { conversationOf } from '../conversation/key.js';
import type { LeaseRequest } from '../store/index.js';
import { eventDelivery, formDelivery, type Delivery } from './delivery.js';

/**
 * Upstash refuses a request over 10 MB (since 2025-09-18; it was 1 MB). A
 * body sealed and base64-encoded grows by a third, plus the record around
 * it: 4 MB x 4/3 + a few KB = 5.4 MB < 10 MB a claim; a takeover's reply,
 * base64 again (Upstash-Encoding), 7.1 MB, under the requester's 16 MB.
 * Past this size (beyond the default body limit of 1 MiB) the delivery is
 * claimed without a body: it runs here, and cannot be taken over (never failed open).
 */
export const MAX_STORED_BODY_BYTES = 4_000_000;

/** The delivery as stored: JSON, without Slack's legacy verification `token` (a secret of old apps). */
export function storedBody(body: Record<string, unknown>): string {
  const { token: _legacy, ...kept } = body;
  return JSON.stringify(kept);
}

/**
 * The lease request a claim of this event carries. Undefined when its body is
 * too large to store. With `ordered` (the bot's turns wait their turn: any
 * concurrency but `parallel`), a message to the bot carries its
 * conversation, and the claim takes its place in the thread's order.
 */
export function leaseRequest(leaseMs: number, body: Record<string, unknown>, eventId: string, options: { ordered?: boolean } = {}): LeaseRequest | undefined {
  const stored = storedBody(body);
  if (Buffer.byteLength(stored) > MAX_STORED_BODY_BYTES) return undefined;
  const channel = (body.event as { channel?: unknown } | undefined)?.channel;
  const conversation = options.ordered ? conversationOf(body) : undefined;
  return { leaseMs, body: stored, eventId, ...(typeof channel === 'string' ? { channel } : {}), ...(conversation !== undefined ? { conversation } : {}) };
}

/**
 * Marks a stored slash command's or interaction's body, so a taker-over, a
 * retry or a replay reads it back as what it was (the body Bolt is given
 * never carries it). An Events API envelope has none.
 */
export const FORM_KIND_FIELD = 'autohub_form';

/** A delivery whose run is leased: every kind of work a person waits on. */
export type Leasable = Extract<Delivery, { kind: 'event' | 'command' | 'interactive' }>;

/** The id a delivery is known by in the logs and the dead letters: an event's id, a form's trigger_id. */
export function workIdOf(delivery: Leasable): string {
  if (delivery.kind === 'event') return delivery.eventId;
  return typeof delivery.body.trigger_id === 'string' ? delivery.body.trigger_id : '';
}

/** Where a form was sent from: a command's `channel_id`, an interaction's `channel.id` or its container's. */
function formChannel(body: Record<string, unknown>): string | undefined {
  const channel = body.channel_id ?? (body.channel as { id?: unknown } | undefined)?.id ?? (body.container as { channel_id?: unknown } | undefined)?.channel_id;
  return typeof channel === 'string' ? channel : undefined;
}

/**
 * The lease request of any leasable delivery: an event's as above; a slash
 * command's or an interaction's, its body marked with its kind (never
 * ordered: a command is not a message of a thread). A form without a
 * trigger_id has no key to lease under.
 */
export function deliveryLeaseRequest(leaseMs: number, delivery: Leasable, options: { ordered?: boolean } = {}): LeaseRequest | undefined {
  if (delivery.kind === 'event') return leaseRequest(leaseMs, delivery.body, delivery.eventId, options);
  if (delivery.claimKeys.length === 0) return undefined;
  const stored = storedBody({ ...delivery.body, [FORM_KIND_FIELD]: delivery.kind });
  if (Buffer.byteLength(stored) > MAX_STORED_BODY_BYTES) return undefined;
  const channel = formChannel(delivery.body);
  return { leaseMs, body: stored, eventId: workIdOf(delivery), ...(channel ? { channel } : {}) };
}

/** A stored body read back (a takeover, a retry, a replay, the journal): the delivery it was, or undefined when it reads as none. */
export function storedDelivery(body: Record<string, unknown>): Leasable | undefined {
  const { [FORM_KIND_FIELD]: form, ...rest } = body;
  try {
    if (form === 'command' || form === 'interactive') {
      return formDelivery(form, rest);
    }
    const delivery = eventDelivery(body);
    return delivery.kind === 'event' ? delivery : undefined;
  } catch {
    return undefined;
  }
}
