/** examples/morning-brief.ts: loaded as `npm start` loads it, its schedule is checked and its brief reads the channel once per slot. */
import { afterEach, describe, expect, it } from 'vitest';
import { loadTurnModule } from '../../app/turn-module.js';
import type { TurnRequest } from '../../lib/bot/index.js';

const slot = '2026-12-07T07:00:00.000Z';
const request: TurnRequest = {
  text: '',
  user: undefined,
  channel: 'CBRIEF',
  threadTs: '',
  ts: '1765090800.000000',
  eventId: `Ev-schedule-morning-brief-${slot}`,
  via: 'schedule',
  late: false,
  files: [],
  copy: { role: 'hub', instance: 'hub-test' },
  schedule: { name: 'morning-brief', slot },
};

describe('examples/morning-brief.ts', () => {
  afterEach(() => {
    delete process.env.BRIEF_CHANNEL;
  });

  it('schedules weekdays at 08:00 Paris time in BRIEF_CHANNEL, checked as start-up checks it', async () => {
    process.env.BRIEF_CHANNEL = 'CBRIEF';
    const mod = await loadTurnModule('examples/morning-brief.ts');
    expect(mod.schedules).toEqual([{ name: 'morning-brief', cron: '0 8 * * 1-5', timezone: 'Europe/Paris', channel: 'CBRIEF' }]);
  });

  it("briefs from the channel's day, read in one step (a takeover gets the kept figures)", async () => {
    process.env.BRIEF_CHANNEL = 'CBRIEF';
    const { takeTurn } = await loadTurnModule('examples/morning-brief.ts');
    const asked: unknown[] = [];
    const steps: string[] = [];
    const ctx = {
      step: async (name: string, fn: () => unknown) => {
        steps.push(name);
        return fn();
      },
      client: {
        conversations: {
          history: async (params: unknown) => {
            asked.push(params);
            return { messages: [{ user: 'U1' }, { user: 'U2' }, { user: 'U1' }, { user: 'UBOT', bot_id: 'B1' }] };
          },
        },
      },
    } as never;
    expect(await takeTurn(request, ctx)).toBe("*Good morning: Monday 7 December.* Since yesterday's brief, 3 message(s) from 2 person(s) here.");
    expect(steps).toEqual(['read-yesterday']);
    expect(asked).toEqual([{ channel: 'CBRIEF', oldest: String(Date.parse(slot) / 1000 - 86_400), limit: 200 }]);
    expect(await takeTurn({ ...request, via: 'mention', schedule: undefined, text: 'hi' }, ctx)).toBe('I post a brief here every weekday morning.');
  });
});
