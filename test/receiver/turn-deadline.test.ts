/**
 * A turn has a deadline. Before, a bot that ignored `ctx.signal`, one that
 * waited for it and one that returned an endless stream all ran forever: the
 * signal never aborted at the end of the retry window, their leases were
 * renewed with no cap, their slots were never freed (mentions behind them
 * were never answered) and health said `ok`. Now at the end of the retry
 * window the signal aborts with a TurnDeadlineError, the turn gets a short
 * grace, and then it is failed whether or not it listened: a dead letter, the
 * owner told, its open message closed, its lease ended and its slot freed.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import type { TakeTurn } from '../../lib/bot/index.js';
import { deadlineGraceMs } from '../../lib/runner/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, HEALTH_AUTH, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

const WINDOW_MS = 2000;
const OWNER = 'U0OWNER';
/** What the listening bot read from `ctx.signal.reason`. */
const heard: unknown[] = [];

const turn: TakeTurn = async (request, ctx) => {
  if (request.text.includes('ignore')) return new Promise<never>(() => {});
  if (request.text.includes('listen')) {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    heard.push((ctx.signal.reason as { code?: unknown }).code);
    throw ctx.signal.reason;
  }
  if (request.text.includes('endless')) {
    return (async function* endless() {
      for (let i = 0; ; i++) {
        yield `chunk ${i} `;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
  }
  return 'fine';
};

describe('a turn past its deadline', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({
    role: 'hub',
    api,
    redis: fx,
    turn,
    env: {
      AUTOHUB_TURN_RETRY_WINDOW_MS: String(WINDOW_MS),
      AUTOHUB_MAX_TURNS: '3',
      AUTOHUB_OWNER: OWNER,
      AUTOHUB_LEASE_MS: '3000',
      AUTOHUB_LEASE_RENEW_MS: '500',
      AUTOHUB_REAPER_MS: '60000',
    },
  });

  it('aborts ctx.signal with a reason the bot reads, then fails the turn whether or not it listened: dead letter, owner told, stream closed, slot freed', async () => {
    const mention = async (eventId: string, text: string, i: number) => {
      const ack = await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts: `1700030000.00000${i}`, text: `<@UAUTOHUB> ${text}` }), {
        signingSecret: SECRET,
      });
      expect(ack.status).toBe(200);
    };
    const stuck = ['Ev-dl-ignore', 'Ev-dl-listen', 'Ev-dl-endless'];
    await mention(stuck[0]!, 'ignore', 1);
    await mention(stuck[1]!, 'listen', 2);
    await mention(stuck[2]!, 'endless', 3);
    // Two normal mentions wait behind the three stuck turns (3 slots).
    await mention('Ev-dl-after-1', 'hello', 4);
    await mention('Ev-dl-after-2', 'hello', 5);
    // Each first takes its place in its conversation (one store command), then waits for a slot.
    await eventually(() => hub.runner.queued === 2, 'two mentions waiting for a slot');

    const dead = async () => ((await hub.store.listDead(100)) ?? []).filter((d) => stuck.includes(d.eventId));
    await eventually(async () => (await dead()).length === 3, 'the three stuck turns dead-lettered', 20_000);
    for (const d of await dead()) expect(d.reason).toMatch(/^deadline: /);
    expect(heard).toEqual(['autohub_turn_deadline']);
    // Their slots came free: the mentions behind them are answered.
    await eventually(
      () => repliesTo(api, 'Ev-dl-after-1').length === 1 && repliesTo(api, 'Ev-dl-after-2').length === 1,
      'the queued mentions answered',
      10_000,
    );
    // The owner is told of each.
    await eventually(() => stuck.every((id) => api.posts().some((c) => c.params.channel === OWNER && c.params.text?.includes(id))), 'the owner told of each');
    // The endless stream was closed, and writes nothing more.
    const streams = [...api.streams.values()].filter((st) => st.thread_ts === '1700030000.000003');
    expect(streams.length).toBeGreaterThan(0);
    expect(streams.every((st) => st.state === 'stopped')).toBe(true);
    await eventually(() => hub.runner.inFlight === 0 && hub.runner.queued === 0, 'every slot free');
    // The endless stream's next write was kept back at the fence: its turn stood down, nothing more is read from it.
    await eventually(() => hub.lines.some((l) => l.event === 'turn.abandoned' && l.eventId === 'Ev-dl-endless'), 'the endless turn to stand down');
    // The turn that ignores its signal never returns: health says so, and its lease is no longer kept.
    const health = (await (await fetch(hub.healthUrl, { headers: HEALTH_AUTH })).json()) as { turns: { past_deadline: number; leases: number } };
    expect(health.turns.past_deadline).toBe(1);
    expect(health.turns.leases).toBe(0);
  });

  it('the grace is short: 5 s at most, a twentieth of a short window, never under 200 ms', () => {
    expect(deadlineGraceMs(600_000)).toBe(5000);
    expect(deadlineGraceMs(10_000)).toBe(500);
    expect(deadlineGraceMs(1000)).toBe(200);
  });
});
