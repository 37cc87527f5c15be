/**
 * Schedules on real copies: real Bolt, the real receiver and runner, a real
 * Redis behind the Upstash bridge, the fake Web API. A slot runs once with
 * both copies up; a hub killed between two slots leaves them to the cloud
 * copy, none lost and none twice; a slot missed while both were down runs
 * once, late, when a copy returns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { eventually, quiescent, repliesTo, SECRET, startCopy, type RunningCopy } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { spawnHub, SHORT_LEASE, type ChildApp } from '../support/child-app.js';
import { scheduleEventId } from '../../lib/schedule/index.js';
import { pageFor } from '../../lib/status/index.js';
import type { TurnModule } from '../../lib/bot/index.js';

const BOT = 'test/support/ticking-bot.mjs';
const loadBot = async (): Promise<TurnModule> => (await import(pathToFileURL(resolve(BOT)).href)) as TurnModule;

describe('a schedule on real copies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const running: RunningCopy[] = [];
  let child: ChildApp | undefined;
  afterEach(async () => {
    child?.child.kill('SIGKILL');
    child = undefined;
    await Promise.all(running.splice(0).map((c) => c.stop()));
  });
  const start = async (role: 'hub' | 'cloud', o: { turn?: TurnModule; env?: Record<string, string>; now?: () => number } = {}) => {
    const copy = await startCopy({
      role,
      webApiUrl: api.url,
      upstash: { url: fx.bridge.url, token: fx.bridge.token },
      env: { AUTOHUB_SCHEDULE_GRACE_MS: '300', ...SHORT_LEASE, ...o.env },
      turn: o.turn ?? (await loadBot()),
      ...(o.now ? { now: o.now } : {}),
    });
    running.push(copy);
    return copy;
  };
  /** The ticks posted so far: slot -> who answered, each reply once per entry. */
  const ticks = () =>
    api
      .posts()
      .filter((c) => c.params.channel === 'CTICK')
      .map((c) => {
        const [, slot, by] = /^tick (\S+) by (\w+)/.exec(c.params.text ?? '') ?? [];
        return { slot: slot!, by: by!, thread: c.params.thread_ts };
      });

  it('runs each slot once with both copies up, on the hub, at the top level of its channel', async () => {
    const from = ticks().length;
    const hub = await start('hub');
    const cloud = await start('cloud');
    await eventually(() => ticks().length - from >= 3, 'three ticks', 10_000);
    hub.scheduler.stop();
    cloud.scheduler.stop();
    await quiescent([hub, cloud]);
    const mine = ticks().slice(from);
    // Each slot's reply once (its first message by its metadata), none in a thread.
    for (const t of mine) expect(repliesTo(api, scheduleEventId('tick', Date.parse(t.slot)))).toHaveLength(1);
    expect(new Set(mine.map((t) => t.slot)).size).toBe(mine.length);
    expect(mine.every((t) => t.thread === undefined)).toBe(true);
    // The hub was up: every slot but one it fired before the cloud copy started is the hub's.
    expect(mine.filter((t) => t.by === 'hub').length).toBeGreaterThanOrEqual(mine.length - 1);
    // Both copies show the schedule in their health body, with the last run.
    const body = hub.health.report().body;
    expect(body.schedules?.[0]).toMatchObject({ name: 'tick', every: 'every 1000 ms', target: '<#CTICK>' });
    expect(body.schedules?.[0]?.last_run?.by).toBe('hub-test');
    // And /autohub status shows it, from the answering copy's health body.
    const page = JSON.stringify(await pageFor(hub.health, hub.store));
    expect(page).toMatch(
      /\*Schedules\*\\n• `tick` \(every 1000 ms\) to <#CTICK>: next \d{4}-\d\d-\d\d \d\d:\d\d UTC; last slot \d{4}-\d\d-\d\d \d\d:\d\d UTC run by hub-test \d+s ago/,
    );
  });

  it('fires on the cloud copy after the hub is killed between two slots: no slot lost, none twice', async () => {
    const cloud = await start('cloud');
    child = await spawnHub({ webApiUrl: api.url, upstash: fx.bridge, secret: SECRET }, { AUTOHUB_TURN: BOT, AUTOHUB_SCHEDULE_GRACE_MS: '300' });
    const from = ticks().length;
    await eventually(
      () =>
        ticks()
          .slice(from)
          .filter((t) => t.by === 'hub').length >= 2,
      'two ticks by the hub',
      15_000,
    );
    child.child.kill('SIGKILL');
    const killedAt = ticks().length;
    await eventually(
      () =>
        ticks()
          .slice(killedAt)
          .filter((t) => t.by === 'cloud').length >= 2,
      'two ticks by the cloud copy after the kill',
      15_000,
    );
    cloud.scheduler.stop();
    await quiescent([cloud], 15_000);
    const mine = ticks().slice(from);
    const slots = mine.map((t) => Date.parse(t.slot)).sort((a, b) => a - b);
    // None twice, and none lost: the slots answered are consecutive, across the kill.
    expect(new Set(slots).size).toBe(slots.length);
    for (const [i, slot] of slots.entries()) if (i > 0) expect(slot - slots[i - 1]!).toBe(1000);
    expect(mine.at(-1)!.by).toBe('cloud');
  });

  it('takes over a slot whose hub was killed mid-turn: answered once, by the cloud copy, at the top level', async () => {
    const slow = { AUTOHUB_TEST_TICK_MS: '60000' };
    // The cloud copy has the schedule too, but its grace is longer than the test: only the takeover can answer.
    const minutely: TurnModule = { ...(await loadBot()), schedules: [{ name: 'tick', everyMs: 60_000, channel: 'CTICK' }] };
    const cloud = await start('cloud', { turn: minutely, env: { AUTOHUB_SCHEDULE_GRACE_MS: '600000' } });
    child = await spawnHub({ webApiUrl: api.url, upstash: fx.bridge, secret: SECRET }, { AUTOHUB_TURN: BOT, AUTOHUB_TEST_TICK_THINK_MS: '60000', ...slow });
    // The hub claims the minute's slot at start (or, its first claims unanswered on a loaded machine, at its
    // retries 15 s apart: CI's two cores missed a 30 s bound once), and thinks.
    await eventually(() => child!.output().includes('"schedule.fired"'), 'the hub to claim the slot', 75_000).catch((error: Error) => {
      throw new Error(`${error.message}; the hub's last lines:\n${child!.output().split('\n').slice(-15).join('\n')}`);
    });
    const fired = child
      .output()
      .split('\n')
      .find((l) => l.includes('"schedule.fired"'))!;
    const slot = Date.parse((JSON.parse(fired) as { slot: string }).slot);
    const eventId = scheduleEventId('tick', slot);
    child.child.kill('SIGKILL');
    await eventually(() => repliesTo(api, eventId).length > 0, 'the slot answered after the kill', 15_000);
    await quiescent([cloud], 15_000);
    const replies = repliesTo(api, eventId);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.params.text).toBe(`tick ${new Date(slot).toISOString()} by cloud`);
    expect(replies[0]!.params.thread_ts).toBeUndefined();
    expect(cloud.lines.some((l) => l.event === 'lease.takeover')).toBe(true);
  }, 150_000);

  it("runs the latest slot missed while both were down once, late, when the copies return ('latest')", async () => {
    const HOUR = 3_600_000;
    const bot = await loadBot();
    const hourly: TurnModule = { ...bot, schedules: [{ name: 'hourly', everyMs: HOUR, channel: 'CTICK' }] };
    // Both copies start 5 minutes after a slot nobody ran (their clocks moved there: the slots are computed on them).
    const slot = Math.ceil(Date.now() / HOUR) * HOUR + 10 * HOUR;
    const offset = slot + 5 * 60_000 - Date.now();
    const now = () => Date.now() + offset;
    const cloud = await start('cloud', { turn: hourly, now });
    const hub = await start('hub', { turn: hourly, now });
    const eventId = scheduleEventId('hourly', slot);
    await eventually(() => repliesTo(api, eventId).length === 1, 'the missed slot answered');
    await quiescent([hub, cloud]);
    const replies = repliesTo(api, eventId);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.params.text).toMatch(/^_\(This comes late: it was due at .* UTC, when I could not run\.\)_\ntick /);
    // The copy that did not run it found it taken: a duplicate claim, no second run.
    expect([hub, cloud].flatMap((c) => c.lines.filter((l) => l.event === 'schedule.fired'))).toHaveLength(1);
  });
});
