// A bot that speaks first: a brief every weekday at 08:00 (Paris time) in a
// channel, run once across the hub and the cloud copy, whichever is up.
//   BRIEF_CHANNEL=C0123456789 AUTOHUB_TURN=examples/morning-brief.ts npm start
//
// Each slot calls takeTurn with `request.via === 'schedule'` and
// `request.schedule = { name, slot }`; the answer is a new message at the top
// level of the channel. A slot missed while both copies were down runs once
// when one returns, late (`request.late`, and the answer says so).
// More: docs/waits-and-schedules.md.
import type { TakeTurn, TurnModule } from 'autohub/bot';

export const schedules: NonNullable<TurnModule['schedules']> = [
  {
    name: 'morning-brief',
    cron: process.env.BRIEF_CRON ?? '0 8 * * 1-5',
    timezone: process.env.BRIEF_TZ ?? 'Europe/Paris',
    // Unset, start-up stops with one line naming the schedule and what it lacks.
    ...(process.env.BRIEF_CHANNEL ? { channel: process.env.BRIEF_CHANNEL } : {}),
  },
];

const DAY_S = 24 * 60 * 60;

export const takeTurn: TakeTurn = async (request, ctx) => {
  if (request.via !== 'schedule' || !request.schedule) return 'I post a brief here every weekday morning.';
  const { slot } = request.schedule;
  // Read once per slot: a takeover or a retry gets the kept figures, not a second read.
  const day = await ctx.step('read-yesterday', async () => {
    const since = Date.parse(slot) / 1000 - DAY_S;
    const history = await ctx.client.conversations.history({ channel: request.channel, oldest: String(since), limit: 200 });
    const people = (history.messages ?? []).filter((m) => m.user && !m.bot_id);
    return { messages: people.length, writers: new Set(people.map((m) => m.user)).size };
  });
  const date = new Date(slot).toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'Europe/Paris' });
  return `*Good morning: ${date}.* Since yesterday's brief, ${day.messages} message(s) from ${day.writers} person(s) here.`;
};
