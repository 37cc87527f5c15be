// A bot that asks before it acts, for tests that kill the asker (a child process): each step it runs is
// appended to ASK_STEP_LOG (`<step> <eventId> <copy>`), so a step run again on any copy shows.
import { appendFileSync } from 'node:fs';

const ran = (step, request) => appendFileSync(process.env.ASK_STEP_LOG, `${step} ${request.eventId} ${request.copy.instance}\n`);

export async function takeTurn(request, ctx) {
  const plan = await ctx.step('prepare', () => {
    ran('prepare', request);
    return 'v2';
  });
  const answer = await ctx.ask({ text: `Deploy ${plan} to prod?`, choices: ['Deploy', 'Cancel'] });
  if (answer.timedOut) return 'No answer: not deploying.';
  await ctx.step('act', () => {
    ran('act', request);
    return true;
  });
  return `Deployed ${plan}, chosen by <@${answer.user}>, on ${request.copy.instance}.`;
}
