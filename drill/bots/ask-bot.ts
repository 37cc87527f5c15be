/**
 * The drill's bot for the `ask` scenario (AUTOHUB_TURN): each mention files a ticket in a ctx.step, then asks
 * its person "File it?" (ctx.ask) and answers with the choice, or with the timeout. A mention whose text says
 * "quick" waits DRILL_ASK_QUICK_MS (nobody clicks: it times out); the others DRILL_ASK_LONG_MS (the drill clicks).
 */
import type { TakeTurn } from '../../lib/turn/types.js';
import { fileTicket } from './ticket.js';

/** The reply when nobody answered in time. */
export const TIMED_OUT = 'No answer in time: not filed.';

export const takeTurn: TakeTurn = async (request, ctx) => {
  const ticket = await fileTicket(request, ctx);
  const quick = /\bquick\b/.test(request.text);
  const timeoutMs = Number((quick ? process.env.DRILL_ASK_QUICK_MS : process.env.DRILL_ASK_LONG_MS) ?? (quick ? 1500 : 8000));
  const answer = await ctx.ask({ text: `File ${ticket}?`, choices: ['Yes', 'No'], timeoutMs });
  return answer.timedOut ? TIMED_OUT : `${answer.choice}, chosen by <@${answer.user}>.`;
};
