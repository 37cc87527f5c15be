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
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandForm } from '../../drill/sim/slack-events.js';
import { RespClient } from '../../drill/sim/resp-client.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { LEASES_KEY } from '../../lib/store/keys.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { type ResponseUrl, startResponseUrl } from '../support/response-url.js';

describe('a command that ran unfenced before its claim could be confirmed', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const runs: string[] = [];
  const bot: TurnModule = {
    takeTurn: () => 'ok',
    register: (app) =>
      (app as App).command('/deploy', async ({ ack, command }) => {
        runs.push(command.text);
        await ack({ text: `deployed ${command.text}` });
      }),
  };
  // Every command but the claim gets 300 ms: the store's 500 ms leaves the confirm's asks unanswered while it is slow.
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot, env: { AUTOHUB_STORE_ATTEMPT_MS: '300' } });
  let hook: ResponseUrl;
  let redis: RespClient;
  beforeAll(async () => {
    hook = await startResponseUrl();
    redis = await RespClient.open(fx.redis.port);
  });
  afterAll(() => {
    hook?.server.close();
    redis?.close();
  });

  it("is finished in the store once the store answers, so no takeover runs it again (before: its lease lapsed, the record 'claimed')", async () => {
    const form = new URLSearchParams(commandForm({ command: '/deploy', triggerId: 'trig-unleased', text: 'prod' }));
    form.set('response_url', hook.url);
    const body = form.toString();
    fx.bridge.delayMs = 500;
    try {
      const ack = await fetch(hub.eventsUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(await signedHeaders(SECRET, body, Date.now())) },
        body,
      });
      expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      await eventually(() => runs.length === 1, 'the command ran');
    } finally {
      fx.bridge.delayMs = 0;
    }
    await eventually(() => hub.lines.some((l) => l.event === 'turn.end_recorded'), "the run's end recorded", 20_000);
    const key = String(hub.lines.find((l) => l.event === 'turn.end_recorded')?.key);
    const record = JSON.parse(String(await redis.command(['GET', key]))) as { state: string };
    expect(record.state).toBe('done');
    expect(await redis.command(['ZSCORE', LEASES_KEY, key])).toBeNull();
    expect(runs).toEqual(['prod']);
  });
});
