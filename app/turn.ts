/**
 * The demo turn: what runs when AUTOHUB_TURN is unset. Do not edit it to
 * write your bot: put your bot in a file of its own and point AUTOHUB_TURN at
 * it (README, "Write your bot"; examples/echo.mjs and examples/anthropic.ts).
 *
 * It greets the asker and says which copy answered, streamed in a few chunks
 * so the streaming path runs everywhere. Its two settings are for the drill:
 * AUTOHUB_DEMO_THINK_MS holds a turn open as a model call would (across lease
 * renewals), AUTOHUB_DEMO_CHUNK_MS slows its stream, AUTOHUB_DEMO_TICKET_URL
 * has it file a ticket in a ctx.step.
 */
import type { TakeTurn, TurnContext, TurnRequest } from '../lib/bot/index.js';
import { realSleep as pause } from '../lib/time/index.js';

export type { TurnRequest } from '../lib/bot/index.js';
export type { TurnReply } from '../lib/bot/index.js';

export interface DemoTurnOptions {
  /** How long the turn pretends to think before its first chunk. @default 0 */
  thinkMs: number;
  /** The pause between its chunks. @default 0 */
  chunkMs?: number;
  /** Grow the answer to this many characters (picked in the range by the question's text, so every run of a turn writes the same answer). @default none */
  replyChars?: { min: number; max: number } | null;
  /**
   * File a "ticket" here (a POST of the event id and this copy's name, under
   * the step's idempotency key) in a ctx.step after thinking: a side effect
   * outside Slack, for the drill's frozen-step. @default none
   */
  ticketUrl?: string | null;
}

/** FNV-1a of a string: the same question always gets the same length. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The long tail the drill checks for wholeness (drill/score.ts): ` w1 w2 ... wK (end of answer: K words)`, about `target` characters. */
export function longTail(target: number): string {
  const words: string[] = [];
  let length = 1;
  for (let k = 1; length < target; k++) {
    const word = `w${k} `;
    words.push(word);
    length += word.length;
  }
  return ` ${words.join('')}(end of answer: ${words.length} words)`;
}

/** A text in chunks of at most `size` characters. */
function* inChunks(text: string, size: number): Iterable<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** What the demo reads of a request (the listeners before the turn handle pass only part of one). */
type DemoRequest = Pick<TurnRequest, 'user' | 'copy'> & Partial<TurnRequest>;

/** The demo turn with its settings injected: the drill's think and chunk pauses. */
export function demoTurn(options: DemoTurnOptions): (request: DemoRequest, ctx?: Partial<TurnContext>) => Promise<AsyncIterable<string>> {
  const { thinkMs } = options;
  const chunkMs = options.chunkMs ?? 0;
  return async (request, ctx) => {
    const signal = ctx?.signal;
    if (thinkMs > 0) await pause(thinkMs);
    signal?.throwIfAborted();
    const ticketUrl = options.ticketUrl;
    if (ticketUrl && ctx?.step) {
      await ctx.step('ticket', async ({ idempotencyKey }) => {
        // The step's key, as a desk that honours one (Stripe's Idempotency-Key) takes it: a second filing is a no-op.
        const filed = await fetch(ticketUrl, {
          method: 'POST',
          headers: { 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ eventId: request.eventId, by: request.copy.instance }),
        });
        if (!filed.ok) throw new Error(`the ticket desk answered ${filed.status}`);
        return ((await filed.json()) as { id: string }).id;
      });
    }
    const where = request.copy.role === 'hub' ? 'the hub' : 'the cloud copy';
    const asker = request.user ? `<@${request.user}>` : 'you';
    const parts = [`Hi ${asker}, `, 'I got that. ', 'Answered by ', `${where} (${request.copy.instance}).`];
    const range = options.replyChars;
    if (range) {
      const target = range.min + (fnv1a(request.text ?? '') % (range.max - range.min + 1));
      parts.push(...inChunks(longTail(target), 500));
    }
    return (async function* () {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && chunkMs > 0) await pause(chunkMs);
        // This copy no longer owns the turn: stop writing.
        if (signal?.aborted) return;
        yield part;
      }
    })();
  };
}

/** The demo as a module's `takeTurn` (the TurnModule contract), with no pauses. */
export const takeTurn = (request: DemoRequest, ctx?: Partial<TurnContext>): Promise<AsyncIterable<string>> => demoTurn({ thinkMs: 0 })(request, ctx);

// The demo fits the contract a module named by AUTOHUB_TURN must meet.
takeTurn satisfies TakeTurn;
