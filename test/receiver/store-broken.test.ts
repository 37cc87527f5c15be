/**
 * Every acked turn ends, whatever the store does for however long. Before, a
 * turn whose claim failed open and whose reply then failed, with the store
 * still broken past the retry window (a spent monthly quota, a full Redis, a
 * hang, 5xx, refused connections), was dropped with one `turn.failed` line:
 * no reply, no dead letter, no word to the owner, even once the store came
 * back. Now the copy keeps it (the local journal), tells the owner once that
 * turns wait on the store, and runs it again when a look goes through.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RespClient } from '../../drill/sim/resp-client.js';
import type { BridgeMode } from '../../drill/sim/upstash-bridge.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { useRedisBridge, type RedisFixture } from '../support/redis-fixture.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopiesPerTest, useFakeWebApiPerTest } from '../support/fixtures.js';

// Long enough for a hung store to be found so (the first write waits one confirm of 500 ms, the claim made
// again after the failure two attempts of 500 ms): a turn still failing past it is a dead letter, not kept.
const WINDOW_MS = 2500;
const OWNER = 'U0OWNER';

/** Redis itself full: `maxmemory` reached under `noeviction`, so every script that writes is refused with OOM. */
async function redisFull(fx: RedisFixture, full: boolean): Promise<void> {
  const client = await RespClient.open(fx.redis.port);
  try {
    await client.command(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
    await client.command(['CONFIG', 'SET', 'maxmemory', full ? '1' : '0']);
  } finally {
    client.close();
  }
}

type Fault = { name: string; on: (fx: RedisFixture) => Promise<void>; off: (fx: RedisFixture) => Promise<void> };
const bridge = (name: string, mode: BridgeMode): Fault => ({
  name,
  on: async (fx) => void (fx.bridge.mode = mode),
  off: async (fx) => void (fx.bridge.mode = 'normal'),
});
const FAULTS: Fault[] = [
  bridge('the monthly quota spent (ERR max requests limit exceeded)', 'quota'),
  { name: 'Redis full (OOM under noeviction)', on: (fx) => redisFull(fx, true), off: (fx) => redisFull(fx, false) },
  bridge('the store hangs', 'hang'),
  bridge('the store answers 500', 'error-500'),
  bridge('connections refused', 'refuse'),
];

describe('a failed-open turn whose reply fails while the store stays broken past the retry window', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApiPerTest();
  const copies = useCopiesPerTest({ api, redis: fx });
  let n = 0;

  it.each(FAULTS.flatMap((f) => [{ fault: f, error: 500 }, ...(f.name.startsWith('the monthly') ? [{ fault: f, error: 'not_in_channel' }] : [])]))(
    '$fault.name, the first reply failing ($error): kept, the owner told once, answered once when the store is back',
    async ({ fault, error }) => {
      const journal = join(mkdtempSync(join(tmpdir(), 'autohub-kept-')), 'journal.jsonl');
      const hub = await copies.start('hub', {
        env: {
          AUTOHUB_JOURNAL: journal,
          AUTOHUB_OWNER: OWNER,
          AUTOHUB_TURN_RETRY_WINDOW_MS: String(WINDOW_MS),
          AUTOHUB_TURN_RETRY_DELAY_MS: '100',
          AUTOHUB_LEASE_MS: '1500',
          AUTOHUB_LEASE_RENEW_MS: '400',
          AUTOHUB_REAPER_MS: '300',
          // A hung store answers a command at its fuse: kept well inside this test's short retry window.
          AUTOHUB_STORE_ATTEMPT_MS: '500',
        },
      });
      const eventId = `Ev-broken-${++n}`;
      api.script(
        'chat.startStream',
        error === 500 ? { status: 500, body: { ok: false, error: 'internal' } } : { status: 200, body: { ok: false, error: 'not_in_channel' } },
      );
      await fault.on(fx);
      const ackedAt = Date.now();
      try {
        const ack = await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts: `1700040000.${String(n).padStart(6, '0')}` }), { signingSecret: SECRET });
        expect(ack.status).toBe(200);
        expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
        await eventually(() => hub.lines.some((l) => l.event === 'turn.journaled' && l.eventId === eventId), 'the failed turn kept', 10_000);
        // The store stays broken past the turn's retry window.
        await eventually(() => Date.now() > ackedAt + WINDOW_MS * 2, 'the retry window to pass', 10_000);
        expect(repliesTo(api, eventId)).toHaveLength(0);
        expect(hub.runner.waitingOnStore).toBe(1);
      } finally {
        await fault.off(fx);
      }
      await eventually(() => repliesTo(api, eventId).length > 0, 'the kept turn answered once the store answers', 15_000);
      await eventually(() => hub.runner.waitingOnStore === 0 && hub.runner.inFlight === 0, 'nothing left waiting');
      expect(repliesTo(api, eventId)).toHaveLength(1);
      // The owner's notice is a DM of its own, sent beside the turn (not before its answer): waited for, then counted.
      const told = () => api.posts().filter((c) => c.params.channel === OWNER && c.params.text?.includes('Turns are waiting for the store'));
      await eventually(() => told().length > 0, 'the owner told', 10_000);
      expect(told()).toHaveLength(1);
      expect(hub.lines.some((l) => l.event === 'journal.drained' && l.eventId === eventId && l.claim === 'claimed')).toBe(true);
    },
  );
});
