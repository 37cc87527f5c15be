/**
 * A bot module's `schedules`, at start-up: a good one is kept; a bad cron, time zone or missing target
 * stops `npm start` with exit 1 and one line naming AUTOHUB_TURN and the schedule, before anything listens.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTurnModule } from '../../app/turn-module.js';
import { startToExit } from '../support/child-app.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-schedules-'));
const write = (name: string, source: string) => {
  writeFileSync(join(dir, name), source);
  return join(dir, name);
};

describe("a module's schedules at start-up", () => {
  it('are kept when good, and refused in one line naming the schedule when not', async () => {
    const good = write(
      'good.mjs',
      "export const schedules = [{ name: 'brief', cron: '0 8 * * 1-5', timezone: 'Europe/Paris', dm: 'U1' }];\nexport function takeTurn() {}\n",
    );
    expect((await loadTurnModule(good)).schedules).toEqual([{ name: 'brief', cron: '0 8 * * 1-5', timezone: 'Europe/Paris', dm: 'U1' }]);
    const bad = write(
      'bad.mjs',
      "export const schedules = [{ name: 'brief', cron: '0 8 * * *', timezone: 'Europe/Pariss', channel: 'C1' }];\nexport function takeTurn() {}\n",
    );
    await expect(loadTurnModule(bad)).rejects.toThrow(
      /^AUTOHUB_TURN is invalid: expected schedule "brief": a cron expression in an IANA time zone, but "0 8 \* \* \*" in "Europe\/Pariss" is refused/,
    );
  });

  it('a schedule without a target stops npm start with exit 1 and one line', () => {
    const path = write('no-target.mjs', "export const schedules = [{ name: 'brief', cron: '0 8 * * *' }];\nexport function takeTurn() {}\n");
    const result = startToExit({ AUTOHUB_TURN: path });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(/^autohub: AUTOHUB_TURN is invalid: expected schedule "brief": one of channel or dm \(where its answer goes\)/);
  });
});
