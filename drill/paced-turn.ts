/**
 * Your bot under the drill's pacing: the module at AUTOHUB_DRILL_BOT, with
 * the pauses a scenario sets for the demo turn (AUTOHUB_DEMO_THINK_MS before
 * it answers, AUTOHUB_DEMO_CHUNK_MS between the pieces of its answer), so a
 * fault that must land mid-turn or mid-stream lands there whatever the bot's
 * own speed. The drill points AUTOHUB_TURN here when it runs your bot.
 */
import { loadTurnModule } from '../app/turn-module.js';
import type { ReplyChunk, ReplyText, TakeTurn, TurnReply } from '../lib/bot/index.js';

const bot = process.env.AUTOHUB_DRILL_BOT;
if (!bot) throw new Error('AUTOHUB_DRILL_BOT: the path of the bot the drill runs');
const inner = await loadTurnModule(bot);
const thinkMs = Number(process.env.AUTOHUB_DEMO_THINK_MS ?? 0) || 0;
const chunkMs = Number(process.env.AUTOHUB_DEMO_CHUNK_MS ?? 0) || 0;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A text in four pieces, or an iterable's own pieces, with `chunkMs` between them; stops when `signal` fires. */
async function* paced(text: ReplyText, signal: AbortSignal | undefined): AsyncIterable<string | ReplyChunk> {
  const pieces: AsyncIterable<string | ReplyChunk> | string[] =
    typeof text === 'string' ? Array.from({ length: 4 }, (_, i) => text.slice((i * text.length) / 4, ((i + 1) * text.length) / 4)) : text;
  let first = true;
  for await (const piece of pieces) {
    if (!first && chunkMs > 0) await pause(chunkMs);
    first = false;
    if (signal?.aborted) return;
    if (piece !== '') yield piece;
  }
}

export const takeTurn: TakeTurn = async (request, ctx) => {
  if (thinkMs > 0) await pause(thinkMs);
  ctx.signal?.throwIfAborted();
  const reply: TurnReply = await inner.takeTurn(request, ctx);
  if (chunkMs <= 0 || reply === undefined || reply === null) return reply;
  if (typeof reply === 'string' || Symbol.asyncIterator in reply) return paced(reply as ReplyText, ctx.signal);
  return { ...reply, text: paced(reply.text, ctx.signal) };
};

export const register = inner.register;
