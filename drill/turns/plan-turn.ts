/**
 * The drill's bot for the `conversation` scenario (AUTOHUB_TURN): a plan of
 * two steps shown as tasks (each `DRILL_PLAN_STEP_MS`, longer than the stream's 1 s pacing so a task shows in progress and the hub can be
 * killed mid-plan), then the demo's short answer, which says how many of the
 * bot's answers the turn saw in its thread (`saw N`): a follow-up that waited
 * for the turn before it sees at least one.
 */
import type { TurnContext, TurnRequest } from '../../lib/bot/index.js';

export const taskDisplayMode = 'plan';

const stepMs = Number(process.env.DRILL_PLAN_STEP_MS ?? '300');
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

export async function* takeTurn(request: TurnRequest, ctx: TurnContext): AsyncIterable<string | { type: 'plan_update'; title: string }> {
  yield { type: 'plan_update', title: 'Working on it' };
  await ctx.step('look', () => pause(stepMs, ctx.signal), { task: 'Look it up' });
  await ctx.step('think', () => pause(stepMs, ctx.signal), { task: { title: 'Think it over', details: request.eventId } });
  const seen = (await ctx.history()).filter((m) => m.role === 'assistant').length;
  const where = request.copy.role === 'hub' ? 'the hub' : 'the cloud copy';
  yield `Hi <@${request.user}>, I got that (saw ${seen}). Answered by ${where} (${request.copy.instance}).`;
}
