// A bot that asks before it acts: it proposes an action, asks the person
// with buttons, waits (parked: no slot held, across restarts and failover),
// and acts once on the answer.
//   AUTOHUB_TURN=examples/approval.ts npm start
//   then: @bot restart billing
//
// ctx.ask ends this run while it waits; the click (on either copy) runs the
// turn again from the top: ctx.step gives back the plan without proposing it
// again, and ctx.ask gives back the answer. The action is a step too, with its
// idempotency key, so it happens once. More: docs/waits-and-schedules.md.
import type { TakeTurn } from 'autohub/bot';

interface Plan {
  verb: string;
  target: string;
}

/** What the person asked for, as an action (a model would propose it here; this reads "<verb> <target>"). */
export function propose(text: string): Plan | undefined {
  const [verb, ...rest] = text.trim().split(/\s+/);
  const target = rest.join(' ');
  return verb && target ? { verb: verb.toLowerCase(), target } : undefined;
}

/** The action itself: your deploy, restart or refund, given the step's idempotency key for the other side. */
export const actions = {
  run: async (plan: Plan, idempotencyKey: string): Promise<string> => `${plan.verb} of ${plan.target} started (${idempotencyKey.slice(0, 8)})`,
};

export const takeTurn: TakeTurn = async (request, ctx) => {
  const plan = await ctx.step('propose', () => propose(request.text) ?? null);
  if (!plan) return 'Tell me what to do, as "<verb> <what>": for example "restart billing".';
  const answer = await ctx.ask({
    text: `I would *${plan.verb}* \`${plan.target}\`. Go ahead?`,
    choices: ['Go ahead', 'Cancel'],
    timeoutMs: 30 * 60_000,
  });
  if (answer.timedOut) return 'No answer within 30 minutes: I did nothing.';
  if (answer.choice !== 'Go ahead') return `Cancelled by <@${answer.user}>: I did nothing.`;
  const done = await ctx.step('act', ({ idempotencyKey }) => actions.run(plan, idempotencyKey));
  return `Done: ${done}, approved by <@${answer.user}>.`;
};
