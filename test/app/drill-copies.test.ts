/**
 * The drill's copies: one that starts but never becomes healthy is stopped by the call that started it. Before,
 * nobody held a handle to it: a drill that went on to its next scenario left two such copies a scenario running
 * (46 processes in one run on a loaded machine, which loaded it further).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCopy } from '../../drill/copies.js';

/** Whether process `pid` still runs (signal 0 tests for it without sending anything). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a drill copy that never becomes healthy', () => {
  it('is stopped, not left running, and the start fails saying so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drill-copies-'));
    const pidFile = join(dir, 'pid');
    // A bot whose module never finishes loading: the copy runs, and never answers its health check.
    const bot = join(dir, 'never-loads.mjs');
    writeFileSync(
      bot,
      [
        "import { writeFileSync } from 'node:fs';",
        `writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));`,
        'setInterval(() => {}, 1000);',
        'await new Promise(() => {});',
        "export const takeTurn = () => 'never';",
        '',
      ].join('\n'),
    );
    await expect(
      startChildCopy('hub', { signingSecret: 'drill-copies-secret', webApiUrl: 'http://127.0.0.1:9/', turn: bot, healthyWithinMs: 20_000 }),
    ).rejects.toThrow(/^a copy did not become healthy within 20 s \(http:\/\/127\.0\.0\.1:\d+\)$/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(running(pid)).toBe(false);
  }, 60_000);
});
