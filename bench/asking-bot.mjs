// The bench's asking bot: a step, then a question (timeout AUTOHUB_BENCH_ASK_MS, default 60,000), then the answer.
export async function takeTurn(_request, ctx) {
  const plan = await ctx.step('prepare', () => 'v2');
  const answer = await ctx.ask({ text: `Deploy ${plan}?`, choices: ['Deploy', 'Cancel'], timeoutMs: Number(process.env.AUTOHUB_BENCH_ASK_MS ?? 60_000) });
  return answer.timedOut ? 'No answer.' : `${answer.choice} ${plan}.`;
}
