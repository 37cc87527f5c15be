/**
 * A slash command whose claim failed open, and whose one ask before it ran
 * went unanswered (the store slower than that ask's fuse), runs unfenced,
 * as fail-open promises. Its claim had landed all the same: a lease nobody
 * renewed. Before, the run's end was written nowhere, the lease lapsed, and
 * the copy that took it over ran the command a second time (a command's
 * answer cannot be read back the way a mention's thread can). Now the
 * confirm, still asked after the run, finds the lease this copy's and
 * finishes it: the turn is done in the store, and nothing takes it over.
 */
import { describe, expect, it } from 'vitest';
import { LEASES_KEY } from '../../lib/store/keys.js';
import { eventually } from '../support/copies.js';
import { deployBot, sendDeploy } from '../support/deploy-bot.js';
import { useCopy, useFakeWebApi, useResponseUrl } from '../support/fixtures.js';
import { useRedisBridge, useRedisReader } from '../support/redis-fixture.js';

describe('a command that ran unfenced before its claim could be confirmed', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const bot = deployBot();
  // Every command but the claim gets 300 ms: the store's 500 ms leaves the confirm's asks unanswered while it is slow.
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot.turn, env: { AUTOHUB_STORE_ATTEMPT_MS: '300' } });
  const hook = useResponseUrl();
  const redis = useRedisReader(fx);

  it("is finished in the store once the store answers, so no takeover runs it again (before: its lease lapsed, the record 'claimed')", async () => {
    fx.bridge.delayMs = 500;
    try {
      const ack = await sendDeploy(hub.eventsUrl, { triggerId: 'trig-unleased', text: 'prod', responseUrl: hook.url });
      expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      await eventually(() => bot.runs.length === 1, 'the command ran');
    } finally {
      fx.bridge.delayMs = 0;
    }
    await eventually(() => hub.lines.some((l) => l.event === 'turn.end_recorded'), "the run's end recorded", 20_000);
    const key = String(hub.lines.find((l) => l.event === 'turn.end_recorded')?.key);
    const record = JSON.parse(String(await redis.command(['GET', key]))) as { state: string };
    expect(record.state).toBe('done');
    expect(await redis.command(['ZSCORE', LEASES_KEY, key])).toBeNull();
    expect(bot.runs.map((r) => r.text)).toEqual(['prod']);
  });
});
