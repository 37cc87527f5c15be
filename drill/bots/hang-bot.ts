/**
 * The drill's bot for `bot-hangs` (AUTOHUB_TURN): the demo turn, except for a
 * question that asks it to hang, as a bot with a bug does. "hang: ignore"
 * never returns and never looks at `ctx.signal`; "hang: listen" waits for
 * `ctx.signal` to abort, then throws its reason, as a model SDK handed the
 * signal does. Either ends at the turn's deadline as a dead letter.
 */
import { demoTurn } from '../../app/turn.js';
import type { TakeTurn } from '../../lib/bot/index.js';

const demo = demoTurn({ thinkMs: 0 });

export const takeTurn: TakeTurn = async (request, ctx) => {
  if (request.text.includes('hang: ignore')) return new Promise<never>(() => {});
  if (request.text.includes('hang: listen')) {
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    throw ctx.signal.reason;
  }
  return demo(request, ctx);
};
