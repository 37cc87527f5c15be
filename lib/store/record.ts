/**
 * The value stored under a claim key: who took the delivery and when, plus a
 * nonce so that a copy retrying its own lost write can recognise it.
 */
import type { Role } from '../config/index.js';

export interface ClaimOwner {
  instance: string;
  role: Role;
}

export interface ClaimRecord extends ClaimOwner {
  /** ISO time the claim was made. */
  at: string;
  nonce: string;
  /** With a lease: the turn's state, its fencing token and the delivery's body. */
  state?: 'claimed';
  token?: number;
  body?: string;
}

export function encodeClaim(owner: ClaimOwner, now: number, nonce: string, body?: string): string {
  const record: ClaimRecord = { instance: owner.instance, role: owner.role, at: new Date(now).toISOString(), nonce };
  if (body !== undefined) Object.assign(record, { state: 'claimed', token: 1, body });
  return JSON.stringify(record);
}

/** The nonce inside a stored value, or undefined when it is not a claim record. */
export function claimNonce(stored: unknown): string | undefined {
  if (typeof stored !== 'string') return undefined;
  try {
    const parsed = JSON.parse(stored) as { nonce?: unknown };
    return typeof parsed.nonce === 'string' ? parsed.nonce : undefined;
  } catch {
    return undefined;
  }
}
