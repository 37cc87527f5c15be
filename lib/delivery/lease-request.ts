/**
 * What a claim stores with an event's lease, so a taker-over can run the turn
 * again: the delivery as JSON, without Slack's legacy verification `token`.
 * Written here once, for the claim (`leaseRequest`) and for the write again
 * of a record the store forgot (the runner's restore).
 */
import { conversationOf } from '../conversation/key.js';
import type { LeaseRequest } from '../store/index.js';

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
