/**
 * The owner hears when the store's plan is nearly spent (Upstash
 * refuses every command past it until the month turns, and every claim then
 * fails open), and when a sweep finds mentions from a time the copies were
 * serving (Slack stopped delivering them). The month's commands are added up
 * by the looks the copies make anyway: no extra command.
 */
import { describe, expect, it } from 'vitest';
import { allowanceReached, missedWhileServing } from '../../lib/notice/index.js';
import { logReporter, UpstashStore, usageKey } from '../../lib/store/index.js';
import { silentLogger } from '../../lib/log/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { SHORT_LEASE } from '../support/child-app.js';
import { eventually, startCopy } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';

describe('allowanceReached', () => {
  it.each([
    [399_999, 500_000, false],
    [400_000, 500_000, true],
    [500_001, 500_000, true],
    [10, 0, false],
  ])('%d of %d commands: told %s', (used, allowance, told) => {
    expect(allowanceReached(used, allowance)).toBe(told);
  });
});

describe('missedWhileServing', () => {
  const since = Date.parse('2026-12-01T10:00:00Z');
  it.each([
    [{ from: '2026-12-01T10:05:00.000Z', answered: 2 }, true],
    [{ from: '2026-12-01T10:05:00.000Z', answered: 0 }, false],
    // From before this copy served: both copies may have been down (the sweep's usual case).
    [{ from: '2026-12-01T09:55:00.000Z', answered: 2 }, false],
  ])('%j: told %s', (sweep, told) => {
    expect(missedWhileServing(sweep, since)).toBe(told);
  });
});

describe("the month's commands, added up by the looks", () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();

  it('each look adds what its copy sent since the last one, at no extra command: the count is what the bridge saw', async () => {
    const store = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: logReporter(silentLogger) });
    const owner = { instance: 'hub-usage', role: 'hub' as const };
    const before = fx.bridge.commands;
    await store.look(owner, 1000, 0);
    for (let i = 0; i < 5; i++) await store.note(`autohub:test:usage:${i}`, 'x', 60);
    const look = await store.look(owner, 1000, 0);
    // Everything the bridge saw (the first look, its script sent whole once, the index built, five notes)
    // but this last look, which the next one counts.
    const counted = fx.bridge.commands - before - 1;
    expect(counted).toBeGreaterThanOrEqual(7);
    expect(look?.monthCommands).toBe(counted);
    expect(await store.read(usageKey(new Date()))).toBe(String(counted));
  });

  it('a copy whose store has used 80% of AUTOHUB_UPSTASH_MONTHLY_COMMANDS tells the owner once', async () => {
    // Started here, not for the whole describe: its looks would add to the count the test above reads.
    const copy = await startCopy({
      role: 'hub',
      webApiUrl: api.url,
      upstash: { url: fx.bridge.url, token: fx.bridge.token },
      env: { ...SHORT_LEASE, AUTOHUB_OWNER: 'U0OWNER', AUTOHUB_UPSTASH_MONTHLY_COMMANDS: '10' },
    });
    try {
      const dms = () => api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.channel === 'U0OWNER');
      await eventually(() => dms().length > 0, 'the owner to be told', 10_000);
      expect(dms()[0]!.params.text).toMatch(/monthly allowance is nearly spent/);
      expect(dms()[0]!.params.text).toMatch(/of 10 commands this month/);
      await copy.notices.settled();
      expect(dms()).toHaveLength(1);
    } finally {
      await copy.stop();
    }
  });
});
