/**
 * The values stored under claim keys: who took the delivery and when, plus a
 * nonce so that a copy retrying its own lost write can recognise it. Only
 * the primary (event) key of a leased claim holds the body; aliases never do.
 */
import type { RestoreDetail } from './lease.js';

/** Which copy: the hub on the owner's Mac, or the cloud copy (any of its replicas). */
export type Role = 'hub' | 'cloud';

export interface ClaimOwner {
  instance: string;
  role: Role;
}

/** A claim that holds a lease: what a taker-over needs to run the turn again. */
export interface LeaseRequest {
  leaseMs: number;
  /** The delivery's body as the store keeps it (opaque here). */
  body: string;
  /** For dead letters and the status page: which event, where. */
  eventId?: string;
  channel?: string;
  /**
   * The conversation the delivery belongs to (lib/conversation's
   * conversationOf), when the bot's turns wait their turn: the claim takes
   * the turn's place in that thread's order (at the claim's time), so a
   * message claimed before a follow-up is ahead of it even if its copy dies
   * before its first look at the gate. Absent with `concurrency: 'parallel'`.
   */
  conversation?: string;
}

export interface ClaimRecord extends ClaimOwner {
  /** ISO time the claim was made (this copy's clock; the lease scripts use Redis's). */
  at: string;
  nonce: string;
}

export function encodeClaim(owner: ClaimOwner, now: number, nonce: string, lease?: LeaseRequest): string {
  const record: Record<string, unknown> = { instance: owner.instance, role: owner.role, at: new Date(now).toISOString(), nonce };
  if (lease) {
    Object.assign(record, { state: 'claimed', token: 1, attempts: 1, body: lease.body });
    if (lease.eventId) record.event_id = lease.eventId;
    if (lease.channel) record.channel = lease.channel;
  }
  return JSON.stringify(record);
}

/** A claim its owner writes again after the store forgot it: the same token, the runs so far, the streamed message. */
export function encodeRestored(owner: ClaimOwner, now: number, nonce: string, token: number, lease: LeaseRequest, detail: RestoreDetail = {}): string {
  const record = JSON.parse(encodeClaim(owner, now, nonce, lease)) as Record<string, unknown>;
  Object.assign(record, { token, attempts: detail.attempts ?? 1 });
  if (detail.streamTs) record.stream = detail.streamTs;
  return JSON.stringify(record);
}

/** An alias key's value: the same owner and nonce, never the body. */
export function encodeAlias(owner: ClaimOwner, now: number, nonce: string): string {
  return JSON.stringify({ instance: owner.instance, role: owner.role, at: new Date(now).toISOString(), nonce });
}
