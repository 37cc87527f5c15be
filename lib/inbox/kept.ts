/**
 * A kept delivery: what Slack signed (its signature and timestamp headers,
 * the raw body), how it came (content type, retry number) and when it
 * arrived. Sealed whole before it reaches the store.
 */

export interface KeptDelivery {
  v: 1;
  /** Unique per keep, so two kept copies of one delivery are two members (the claim runs them once). */
  id: string;
  arrivedAt: number;
  headers: { 'content-type': string; 'x-slack-request-timestamp': string; 'x-slack-signature': string; 'x-slack-retry-num'?: string };
  /** The raw body, as Slack signed it (Slack's bodies are UTF-8 text: JSON or a form). */
  body: string;
}

export type KeptKind = 'event' | 'command' | 'interaction' | 'other';

/** What a kept body is: an Events API callback, a slash command, an interaction (button, modal, shortcut). */
export function keptKind(contentType: string, body: string): KeptKind {
  if (contentType.includes('application/json')) return body.includes('"event_callback"') ? 'event' : 'other';
  if (contentType.includes('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(body);
    if (form.has('command')) return 'command';
    if (form.has('payload')) return 'interaction';
  }
  return 'other';
}

/** The ephemeral answer a kept slash command gets at once, from the edge. */
export const CATCHING_UP_TEXT = "I'm catching up; I'll answer here shortly";

export function parseKept(text: string): KeptDelivery | undefined {
  try {
    const value = JSON.parse(text) as KeptDelivery;
    if (value?.v !== 1 || typeof value.body !== 'string' || typeof value.arrivedAt !== 'number' || typeof value.headers !== 'object') return undefined;
    return value;
  } catch {
    return undefined;
  }
}
