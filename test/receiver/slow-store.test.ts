/**
 * A store a little slower than the claim's fuse: every round trip takes
 * 500 ms against 450 ms. Each claim fails open (by design: Slack waits for
 * the ack), but lands. Before, every other command was sent with the same
 * fuse, so the confirm of that claim, the renewals, the commits before
 * writes and the finishes never answered either: no copy could prove it held
 * a turn, a delivery that reached both copies was answered by both, and no
 * turn ever ended in the store. And a copy's first write went out before
 * the confirm of its claim could answer, so even a confirm that said
 * "another copy's" came after the duplicate reply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { startUpstashBridge, type UpstashBridge } from '../../drill/sim/upstash-bridge.js';
import { UpstashStore } from '../../lib/store/index.js';
import { eventually, quiescent, repliesTo, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

/**
 * Two copies on one Redis, and a reader of it through a bridge of its own that
 * is never slow; `warm` has each copy serve one mention first, so Redis knows
 * the scripts by their SHA before the store turns slow.
 */
function twoCopiesAndReader(env: Record<string, string> = {}) {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx, env });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env });
  let direct: UpstashBridge | undefined;
  const shared = { fx, api, hub, cloud, reader: undefined as unknown as UpstashStore };
  beforeAll(async () => {
    direct = await startUpstashBridge({ redisPort: fx.redis.port });
    shared.reader = new UpstashStore({ settings: { url: direct.url, token: direct.token }, reporter: () => {} });
  });
  afterAll(async () => {
    await direct?.close();
  });
  const warm = async (prefix: string, tsBase: string) => {
    for (const [copy, i] of [
      [hub, 0],
      [cloud, 1],
    ] as const) {
      const eventId = `${prefix}-warm-${i}`;
      await deliver(copy.eventsUrl, mentionEnvelope({ eventId, ts: `${tsBase}.00000${i}` }), { signingSecret: SECRET });
      await turnOver(shared.reader, eventId, 15_000);
    }
  };
  return Object.assign(shared, { warm });
}

describe('every store round trip takes 500 ms, just past the claim fuse', () => {
  const copies = twoCopiesAndReader();
  const { fx, api, hub, cloud } = copies;

  it('a mention delivered to both copies (a Slack retry reaching the other one) is answered once, ends in the store, and is no dead letter', async () => {
    const { reader } = copies;
    await copies.warm('Ev-slow', '1700015000');
    const ids = ['Ev-slow-1', 'Ev-slow-2', 'Ev-slow-3', 'Ev-slow-4'];
    fx.bridge.delayMs = 500;
    try {
      const acks = await Promise.all(
        ids.flatMap((eventId, i) => {
          const envelope = mentionEnvelope({ eventId, ts: `1700015001.00000${i}` });
          return [deliver(hub.eventsUrl, envelope, { signingSecret: SECRET }), deliver(cloud.eventsUrl, envelope, { signingSecret: SECRET, retryNum: 1 })];
        }),
      );
      // Every claim failed open (its answer came after the fuse) and was acked all the same.
      for (const ack of acks) {
        expect(ack.status).toBe(200);
        expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      }
      await eventually(() => ids.every((id) => repliesTo(api, id).length > 0), 'every mention to be answered', 20_000);
      // While the store is still slow: every turn ends in the store (the finish answers on its own fuse).
      await quiescent([{ runner: hub.runner, keeper: hub.keeper, store: reader }, cloud], 15_000);
    } finally {
      fx.bridge.delayMs = 0;
    }
    for (const id of ids) {
      expect(repliesTo(api, id), id).toHaveLength(1);
      // One copy confirmed its claim; the other heard it was another copy's and stood down before writing.
      const lines = [...hub.lines, ...cloud.lines];
      expect(
        lines.filter((l) => l.event === 'claim.confirmed' && l.eventId === id),
        id,
      ).toHaveLength(1);
      expect(
        lines.filter((l) => l.event === 'claim.not_ours' && l.eventId === id),
        id,
      ).toHaveLength(1);
      expect(
        lines.filter((l) => l.event === 'turn.replied' && l.eventId === id),
        id,
      ).toHaveLength(1);
    }
    expect(await reader.listDead(100)).toEqual([]);
  }, 60_000);
});

describe('claims that never landed, then a store 500 ms slow', () => {
  // The turns think, so each first write comes while the copy asks the store about its claim.
  const copies = twoCopiesAndReader({ AUTOHUB_DEMO_THINK_MS: '1500' });
  const { fx, api, hub, cloud } = copies;

  it('each copy finds its claim absent and claims again off the ack path: one holds the turn, the other stands down before writing', async () => {
    // The bug: the claim made again was sent with the claim's short fuse and failed open too, and a claim
    // made again that found the turn held already gave no lease and no word: both copies wrote. And: a first
    // write made between two asks of the confirm (the first answered 500) went out unfenced, so both wrote.
    const { reader } = copies;
    await copies.warm('Ev-absent', '1700016000');
    const eventId = 'Ev-absent-1';
    const envelope = mentionEnvelope({ eventId, ts: '1700016001.000001' });
    // The store refuses every request (500): neither claim lands.
    fx.bridge.mode = 'error-500';
    let acks: Response[];
    try {
      acks = await Promise.all([
        deliver(hub.eventsUrl, envelope, { signingSecret: SECRET }),
        deliver(cloud.eventsUrl, envelope, { signingSecret: SECRET, retryNum: 1 }),
      ]);
    } finally {
      // Slow from the first request the store answers again.
      fx.bridge.delayMs = 500;
      fx.bridge.mode = 'normal';
    }
    try {
      for (const ack of acks) expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      await eventually(() => repliesTo(api, eventId).length > 0, 'the mention to be answered', 20_000);
      await quiescent([{ runner: hub.runner, keeper: hub.keeper, store: reader }, cloud], 15_000);
    } finally {
      fx.bridge.delayMs = 0;
    }
    const lines = [...hub.lines, ...cloud.lines];
    // On failure, what each copy logged of this turn: which claim, confirm and write went how (this race is rare under load).
    const story = lines
      .filter((l) => l.eventId === eventId)
      .map((l) => JSON.stringify(l))
      .join('\n');
    expect(repliesTo(api, eventId), story).toHaveLength(1);
    expect(lines.filter((l) => l.event === 'claim.confirmed' && l.eventId === eventId && l.reclaimed === true)).toHaveLength(1);
    expect(lines.filter((l) => l.event === 'claim.not_ours' && l.eventId === eventId)).toHaveLength(1);
    expect(await reader.listDead(100)).toEqual([]);
  }, 60_000);
});
