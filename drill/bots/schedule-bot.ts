/**
 * The drill's bot for the `schedule` scenario (AUTOHUB_TURN): one schedule, `drill-tick`, every
 * DRILL_TICK_MS (at least 1,000) into TICK_CHANNEL; each firing files a ticket in a ctx.step, then posts
 * `tick <slot> by <copy>` (autohub marks a late one). Mentions get a short answer.
 */
import type { TakeTurn, TurnModule } from '../../lib/turn/types.js';
import { fileTicket } from './ticket.js';

export const TICK_CHANNEL = 'C0TICK';
export const TICK_NAME = 'drill-tick';

export const schedules: NonNullable<TurnModule['schedules']> = [{ name: TICK_NAME, everyMs: Number(process.env.DRILL_TICK_MS ?? 1000), channel: TICK_CHANNEL }];

export const takeTurn: TakeTurn = async (request, ctx) => {
  if (request.via !== 'schedule' || !request.schedule) return `Hi <@${request.user}>, answered by ${request.copy.instance}.`;
  await fileTicket(request, ctx);
  return `tick ${request.schedule.slot} by ${request.copy.instance}`;
};
