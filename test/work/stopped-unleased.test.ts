/**
 * A mention whose claim failed open (the store slower than its fuse), stopped
 * by the person (Slack refuses the stream's end with `stopped_by_user`)
 * before the store answered its confirm. Its claim had landed all the same: a
 * lease nobody renewed. Its run ended with its signal aborted, and the runner
 * took an aborted signal for a turn stood down, so it left the run's end to
 * nobody: the confirm, once the store answered, had no run to decide for, the
 * record stayed `claimed` and its lease lapsed into a takeover. A stop (the
 * person's Stop, an interrupt, the deadline) bars no write and is no stand
 * down: now the confirm finishes that lease, as for any run that ended before
 * its answer (test/work/unleased-end.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { LEASES_KEY } from '../../lib/store/keys.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge, useRedisReader } from '../support/redis-fixture.js';

/** Streams its answer in two parts. */
const bot: TurnModule = {
  async *takeTurn(request) {
    yield 'first part, ';
    yield `then the rest for ${request.text}`;
  },
};

describe('a mention that ran unfenced and was stopped by the person before its claim could be confirmed', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  // Every command but the claim gets 300 ms: the store's 500 ms leaves the confirm's asks unanswered while it is slow.
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot, env: { AUTOHUB_STORE_ATTEMPT_MS: '300' } });
  const redis = useRedisReader(fx);

  it("is finished in the store once the store answers (before: its record stayed 'claimed' and its lease lapsed into a takeover)", async () => {
    // https://docs.slack.dev/reference/methods/chat.stopStream: `stopped_by_user`, the person pressed Stop.
    api.script('chat.stopStream', { status: 200, body: { ok: false, error: 'stopped_by_user' } });
    fx.bridge.delayMs = 500;
    try {
      const ack = await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-su', ts: `${Math.floor(Date.now() / 1000) - 60}.000001` }), {
        signingSecret: SECRET,
      });
      expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      await eventually(() => hub.lines.some((l) => l.event === 'turn.stopped_by_user' && l.eventId === 'Ev-su'), 'the turn stopped by the person');
    } finally {
      fx.bridge.delayMs = 0;
    }
    const ended = () => hub.lines.find((l) => l.event === 'turn.end_recorded' && l.eventId === 'Ev-su');
    await eventually(() => ended() !== undefined, "the stopped run's end recorded under the lease its claim won", 20_000);
    const key = String(ended()?.key);
    const record = JSON.parse(String(await redis.command(['GET', key]))) as { state: string };
    expect(record.state).toBe('done');
    expect(await redis.command(['ZSCORE', LEASES_KEY, key])).toBeNull();
    // One stream, started once: nothing ran the turn again.
    expect(api.calls.filter((c) => c.method === 'chat.startStream')).toHaveLength(1);
  });
});
