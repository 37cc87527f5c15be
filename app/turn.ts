/**
 * ============================================================================
 *  THE TURN: replace this module with your own bot's logic.
 * ============================================================================
 *
 * `takeTurn` gets what the user said and which copy is answering, and returns
 * the text to post in the thread. Everything around it (claiming the
 * delivery, failover, rate limits, threading, tracing metadata) is done for
 * you by the listeners in app/listeners/. Keep the signature and return the
 * reply; throw to post nothing (the error is logged as `turn.failed`).
 */
import type { Role } from '../lib/config/index.js';

export interface TurnRequest {
  /** What the user wrote, with the bot's mention left in. */
  text: string;
  /** The Slack user id of the person asking. */
  user: string | undefined;
  /** Where the reply goes. */
  channel: string;
  /** Which copy is answering. */
  copy: { role: Role; instance: string };
  /** 'mention' for an @mention in a channel, 'dm' for a direct message. */
  via: 'mention' | 'dm';
}

/**
 * How long the demo turn pretends to think, as a model call would
 * (AUTOHUB_DEMO_THINK_MS, default 0): the drill uses it to hold turns open
 * across lease renewals. Your own turn has no need of it.
 */
let thinkMs = 0;
export function configureDemoTurn(options: { thinkMs: number }): void {
  thinkMs = options.thinkMs;
}

export async function takeTurn(request: TurnRequest): Promise<string> {
  if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs));
  const where = request.copy.role === 'hub' ? 'the hub' : 'the cloud copy';
  const asker = request.user ? `<@${request.user}>` : 'you';
  return `Hi ${asker}, I got that. Answered by ${where} (${request.copy.instance}).`;
}
