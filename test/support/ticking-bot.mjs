// A bot for the schedules' tests: one schedule, `tick`, every AUTOHUB_TEST_TICK_MS
// (default 1,000) into channel CTICK; its answer names the slot and the copy that ran it.

export const schedules = [{ name: 'tick', everyMs: Number(process.env.AUTOHUB_TEST_TICK_MS ?? 1000), channel: 'CTICK' }];

/** @type {import('../../lib/bot/index.js').TakeTurn} */
export async function takeTurn(request) {
  if (request.via !== 'schedule') return 'not a tick';
  // AUTOHUB_TEST_TICK_THINK_MS: each tick thinks this long first (a copy a test kills mid-turn).
  const think = Number(process.env.AUTOHUB_TEST_TICK_THINK_MS ?? 0);
  if (think > 0) await new Promise((r) => setTimeout(r, think));
  return `tick ${request.schedule.slot} by ${request.copy.role}`;
}
