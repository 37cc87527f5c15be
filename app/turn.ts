/**
 * ============================================================================
 *  THE TURN: replace this module with your own bot's logic.
 * ============================================================================
 *
 * `takeTurn` gets what the user said and which copy is answering, and returns
 * the reply: a string, or an async iterable of text chunks (what a model
 * SDK's stream gives) which is streamed into one message in the thread as it
 * is written. Everything around it (claiming the delivery, failover, rate
 * limits, threading, streaming, tracing metadata) is done for you by the
 * listeners in app/listeners/. Throw to post nothing: a passing failure is
 * retried, a lasting one becomes a dead letter (`npm run deadletter`).
 *
 * A model SDK's stream plugs in as it is, e.g. with the Anthropic SDK:
 *
 *   export async function* takeTurn(request) {
 *     const stream = anthropic.messages.stream({ model, max_tokens: 1024, messages: [{ role: 'user', content: request.text }] });
 *     for await (const event of stream) {
 *       if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') yield event.delta.text;
 *     }
 *   }
 *
 * (an async generator function returns an async iterable, which is what is expected).
 */
import type { Role } from '../lib/config/index.js';
import { realSleep as pause } from '../lib/time/index.js';

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
/** The pause between the demo turn's chunks (AUTOHUB_DEMO_CHUNK_MS, default 0): the drill slows a stream with it. */
let chunkMs = 0;
export function configureDemoTurn(options: { thinkMs: number; chunkMs?: number }): void {
  thinkMs = options.thinkMs;
  chunkMs = options.chunkMs ?? 0;
}

export type TurnReply = string | AsyncIterable<string>;

/** The demo turn with its settings injected (AUTOHUB_DEMO_THINK_MS, AUTOHUB_DEMO_CHUNK_MS). */
export function demoTurn(options: { thinkMs: number; chunkMs?: number }): (request: TurnRequest) => Promise<TurnReply> {
  return async (request) => {
    if (options.thinkMs > 0) await pause(options.thinkMs);
    return demoReply(request, options.chunkMs ?? 0);
  };
}

function demoReply(request: Pick<TurnRequest, 'copy' | 'user'>, chunkMs: number): AsyncIterable<string> {
  const where = request.copy.role === 'hub' ? 'the hub' : 'the cloud copy';
  const asker = request.user ? `<@${request.user}>` : 'you';
  const parts = [`Hi ${asker}, `, 'I got that. ', 'Answered by ', `${where} (${request.copy.instance}).`];
  return (async function* () {
    for (const [i, part] of parts.entries()) {
      if (i > 0 && chunkMs > 0) await pause(chunkMs);
      yield part;
    }
  })();
}

/** The demo turn: a short reply, streamed in a few chunks so the streaming path runs everywhere. */
export async function takeTurn(request: TurnRequest): Promise<TurnReply> {
  if (thinkMs > 0) await pause(thinkMs);
  const where = request.copy.role === 'hub' ? 'the hub' : 'the cloud copy';
  const asker = request.user ? `<@${request.user}>` : 'you';
  const parts = [`Hi ${asker}, `, 'I got that. ', 'Answered by ', `${where} (${request.copy.instance}).`];
  return (async function* () {
    for (const [i, part] of parts.entries()) {
      if (i > 0 && chunkMs > 0) await pause(chunkMs);
      yield part;
    }
  })();
}
