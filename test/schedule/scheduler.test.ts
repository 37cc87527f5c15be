/**
 * The scheduler on a test's clock (no real time): two copies fire each slot,
 * the claim (a shared set standing for the store's claim script) runs it
 * once; the hub first, the cloud copy after its grace; slots missed while
 * both were down, by `missed`.
 */
import { describe, expect, it } from 'vitest';
import { CATCH_UP_SLOTS, checkedSchedules, firingOf, Scheduler, type ScheduleSpec } from '../../lib/schedule/index.js';
import { silentLogger } from '../../lib/log/index.js';
import { manualClock } from '../support/virtual-time.js';

const MINUTE = 60_000;
/** Longer than a slot's lateness bound (the grace and a minute), so a missed slot can be late. */
const PERIOD = 10 * MINUTE;
const GRACE = 30_000;
/** A slot boundary. */
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % PERIOD);
const at = (ms: number) => new Date(ms).toISOString();

/**
 * `lateTimersMs`: every timer fires this much after it was due (a loaded machine, a loop that stalled).
 * `earlyTimers`: a waiting timer's first read of the wall clock is a millisecond short of when it was due, the next
 * read on time (Node's timers keep a monotonic clock, Date.now another: the drill saw a timer due at :36.300 read
 * :36.299, then :36.300 a line later).
 */
function rig(spec: Partial<ScheduleSpec> = {}, o: { earlyTimers?: boolean; lateTimersMs?: number } = {}) {
  // Past the cloud copy's grace: both copies' first slot is T0.
  const clock = manualClock(T0 + GRACE + 1);
  let early = false;
  const now = () => {
    const t = clock.now() - (early ? 1 : 0);
    early = false;
    return t;
  };
  const after = (ms: number, fn: () => void) =>
    clock.after(ms + (o.lateTimersMs ?? 0), () => {
      early = o.earlyTimers === true && ms > 0;
      fn();
    });
  const schedules = checkedSchedules([{ name: 'tick', everyMs: PERIOD, channel: 'C1', ...spec }]);
  const claimed = new Map<string, string>();
  const runs: Array<{ eventId: string; by: string; late: boolean; at: number }> = [];
  let storeAway = false;
  const copy = (role: 'hub' | 'cloud') =>
    new Scheduler({
      schedules,
      role,
      instance: `${role}-1`,
      log: silentLogger,
      now,
      after,
      graceMs: GRACE,
      retryMs: 5_000,
      inject: async (envelope) => {
        if (storeAway) return 'fail-open';
        const eventId = String(envelope.event_id);
        if (claimed.has(eventId)) return 'duplicate';
        claimed.set(eventId, role);
        runs.push({ eventId, by: role, late: firingOf(envelope)!.late, at: clock.now() });
        return 'claimed';
      },
    });
  const settle = () => new Promise((r) => setTimeout(r, 0));
  /** Move the clock on and let the fired injects settle. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await settle();
  };
  return { clock, copy, runs, advance, setStoreAway: (away: boolean) => (storeAway = away) };
}

describe('a schedule on two copies', () => {
  it('runs each slot once, on the hub while it is up; the cloud copy finds it taken after its grace', async () => {
    const { copy, runs, advance } = rig();
    // The cloud copy started first: still the hub's claim comes first at each slot.
    const cloud = copy('cloud');
    const hub = copy('hub');
    cloud.start();
    hub.start();
    await advance(3 * PERIOD);
    // Slot T0, past the cloud copy's grace when it started, is its; the three after it, each once, the hub's.
    expect(runs.map((r) => [r.eventId.slice(-24), r.by])).toEqual([0, 1, 2, 3].map((i) => [at(T0 + i * PERIOD), i === 0 ? 'cloud' : 'hub']));
    expect(new Set(runs.map((r) => r.eventId)).size).toBe(runs.length);
    expect(runs.every((r) => !r.late)).toBe(true);
    expect(cloud.view()[0]!.last_run).toEqual({ slot: at(T0 + 3 * PERIOD), at: at(T0 + 3 * PERIOD + GRACE), by: 'hub', late: false });
    expect(hub.view()[0]!.last_run?.by).toBe('hub-1');
    expect(hub.view()[0]!.next_slot).toBe(at(T0 + 4 * PERIOD));
  });

  it('fires on the cloud copy, after its grace, the slot after the hub was stopped, and none twice', async () => {
    const { copy, runs, advance } = rig();
    const hub = copy('hub');
    const cloud = copy('cloud');
    hub.start();
    cloud.start();
    await advance(PERIOD);
    hub.stop();
    await advance(PERIOD);
    expect(runs.map((r) => [r.eventId.slice(-24), r.by])).toEqual([
      [at(T0), 'hub'],
      [at(T0 + PERIOD), 'hub'],
      [at(T0 + 2 * PERIOD), 'cloud'],
    ]);
    expect(runs.at(-1)).toMatchObject({ late: false, at: T0 + 2 * PERIOD + GRACE });
  });

  it('keeps one timer between slots: an idle schedule sends nothing until its next slot', async () => {
    const { clock, copy, runs, advance } = rig();
    const hub = copy('hub');
    hub.start();
    await advance(PERIOD / 2);
    expect(clock.pending).toBe(1);
    expect(runs).toHaveLength(1);
  });

  it('fires every slot when a timer reads the clock a millisecond early (the arming read a slot later skipped the one due)', async () => {
    const { copy, runs, advance } = rig({}, { earlyTimers: true });
    const hub = copy('hub');
    const cloud = copy('cloud');
    hub.start();
    cloud.start();
    await advance(4 * PERIOD);
    hub.stop();
    await advance(4 * PERIOD);
    // Each slot from T0 once: the hub's five, then the cloud copy's four while the hub is stopped.
    expect(runs.map((r) => [r.eventId.slice(-24), r.by])).toEqual(Array.from({ length: 9 }, (_, i) => [at(T0 + i * PERIOD), i <= 4 ? 'hub' : 'cloud']));
  });

  it('a timer that fires seconds late, on the one copy up, fires each slot it passed, on time (before: only the newest; the rest lost)', async () => {
    const SECOND = 1000;
    const { copy, runs, advance } = rig({ everyMs: SECOND }, { lateTimersMs: 2500 });
    const cloud = copy('cloud');
    cloud.start();
    await advance(20 * SECOND);
    const slots = runs.map((r) => Date.parse(r.eventId.slice(-24)));
    // From its first slot to its last, each once, none late (the lateness bound is the grace and a minute).
    expect(slots.length).toBeGreaterThan(10);
    expect(slots).toEqual(Array.from({ length: slots.length }, (_, i) => slots[0]! + i * SECOND));
    expect(runs.every((r) => r.by === 'cloud' && !r.late)).toBe(true);
  });

  it(`a timer 15 s late on a 1 s schedule starts at most ${CATCH_UP_SLOTS} slots it passed beside the newest, not all of them at once`, async () => {
    const { copy, runs, advance } = rig({ everyMs: 1000 }, { lateTimersMs: 15_000 });
    copy('cloud').start();
    await advance(60_000);
    const burst = new Map<number, number>();
    for (const r of runs) burst.set(r.at, (burst.get(r.at) ?? 0) + 1);
    expect(Math.max(...burst.values())).toBe(CATCH_UP_SLOTS + 1);
  });

  it('a slot a late timer caught up, whose claim the store could not answer, is tried again while not late (before: only the newest was)', async () => {
    const SECOND = 1000;
    const { copy, runs, advance, setStoreAway } = rig({ everyMs: SECOND }, { lateTimersMs: 2500 });
    copy('cloud').start();
    await advance(6 * SECOND);
    setStoreAway(true);
    await advance(4 * SECOND);
    setStoreAway(false);
    await advance(20 * SECOND);
    const slots = runs.map((r) => Date.parse(r.eventId.slice(-24))).sort((a, b) => a - b);
    // Each slot from the first to the last once: those the store was away for too, on a retry.
    expect(slots).toEqual(Array.from({ length: slots.length }, (_, i) => slots[0]! + i * SECOND));
  });
});

describe('slots missed while both copies were down', () => {
  it("'latest' runs only the latest missed slot, once, late; the next runs on time", async () => {
    const { copy, runs, advance } = rig();
    await advance(5 * PERIOD + 2 * MINUTE);
    const cloud = copy('cloud');
    cloud.start();
    const hub = copy('hub');
    hub.start();
    await advance(0);
    expect(runs).toEqual([{ eventId: expect.stringContaining(at(T0 + 5 * PERIOD)), by: 'cloud', late: true, at: expect.any(Number) }]);
    await advance(PERIOD);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ eventId: expect.stringContaining(at(T0 + 6 * PERIOD)), by: 'hub', late: false });
  });

  it("'skip' runs none of them; the next slot runs on time", async () => {
    const { copy, runs, advance } = rig({ missed: 'skip' });
    await advance(5 * PERIOD + 2 * MINUTE);
    const hub = copy('hub');
    hub.start();
    await advance(0);
    expect(runs).toEqual([]);
    await advance(PERIOD);
    expect(runs).toMatchObject([{ eventId: expect.stringContaining(at(T0 + 6 * PERIOD)), by: 'hub', late: false }]);
  });

  it('a slot the store could not answer for is tried again, and runs once', async () => {
    const { copy, runs, advance, setStoreAway } = rig();
    const hub = copy('hub');
    setStoreAway(true);
    hub.start();
    await advance(0);
    expect(runs).toEqual([]);
    setStoreAway(false);
    await advance(5_000);
    expect(runs).toHaveLength(1);
    await advance(5_000);
    expect(runs).toHaveLength(1);
  });
});
