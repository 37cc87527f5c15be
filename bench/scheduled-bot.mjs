// The bench's scheduled bot: one schedule, `tick`, every AUTOHUB_BENCH_TICK_MS (default 2,000) into channel CBENCH.
export const schedules = [{ name: 'tick', everyMs: Number(process.env.AUTOHUB_BENCH_TICK_MS ?? 2000), channel: 'CBENCH' }];

export function takeTurn(request) {
  return request.via === 'schedule' ? `tick ${request.schedule.slot}` : 'hello';
}
