/**
 * The catch-up sweep when the store stumbles. The real WebClient against the
 * fake Web API serving Slack's history; the store's answers are lost by hand.
 *
 * - The sweep lock after a store that hung: the take got no answer, yet
 *   landed when the store came back. It was taken in a name nobody knew, so
 *   every copy was shut out of sweeping for the lock's two minutes, and the
 *   mentions Slack gave up on meanwhile waited that long (the CI drill's
 *   `both-down` lost them, right after `store-blip-mid-turn`).
 * - A copy stopped (SIGTERM, a deploy) mid-sweep, or killed: its lock
 *   outlived it by two minutes, in which no copy swept (the CI drill's
 *   `both-down`, after a hub restarted for the next scenario mid-sweep).
 * - A found message whose claim fails open: run anyway, it doubled a live
 *   delivery of the same message whose own claim had failed open too (the
 *   drill's `store-blip-mid-turn`, one duplicate on a loaded machine).
 */
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { CatchupSweeper, sweepLockMs } from '../../lib/catchup/index.js';
import { silentLogger } from '../../lib/log/index.js';
import { MemoryStore, STATUS_KEYS, SWEEP_LOCK_KEY } from '../../lib/store/index.js';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, startCopy } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';

describe('the catch-up sweep when the store stumbles', () => {
  const api = useFakeWebApi();

  const sweeper = (
    store: MemoryStore,
    instance: string,
    injected: string[],
    outcome: () => 'claimed' | 'fail-open' = () => 'claimed',
    now?: () => number,
    retryWindowMs = 1000,
  ) =>
    new CatchupSweeper({
      client: new WebClient('xoxb-test', { slackApiUrl: api.url }),
      store,
      inject: async (envelope) => {
        injected.push(String((envelope.event as { ts: string }).ts));
        return outcome();
      },
      instance,
      log: silentLogger,
      maxMs: 3_600_000,
      retryWindowMs,
      everyMs: 1000,
      paceMs: 0,
      ...(now ? { now } : {}),
    });

  it("a take whose answer was lost but which landed is the same copy's on its next look, and nobody else's", async () => {
    const ts = (Date.now() / 1000 - 2).toFixed(6);
    api.addMessage('C0LOCK', { ts, user: 'U0PERSON', text: '<@UAUTOHUB> still there?' });
    const store = new MemoryStore();
    let lost = 1;
    const lock = store.lock.bind(store);
    // The store hangs past the budget on the first take, and the take lands once it is back.
    store.lock = async (...a) => {
      const taken = await lock(...a);
      return lost-- > 0 ? (undefined as unknown as boolean) : taken;
    };
    const injected: string[] = [];
    const hub = sweeper(store, 'hub', injected);
    const cloud = sweeper(store, 'cloud', []);
    const look = { sinceServedMs: 5000, gap: null, nowMs: Date.now() };

    expect(await hub.maybeSweep(look)).toBeUndefined();
    expect(await store.read(SWEEP_LOCK_KEY)).toMatch(/^hub:/);
    // The other copy is still kept out: one sweep at a time.
    expect(await cloud.maybeSweep(look)).toBeUndefined();
    const record = await hub.maybeSweep(look);
    expect(record).toMatchObject({ instance: 'hub', answered: 1 });
    expect(injected).toEqual([ts]);
    // Let go when the sweep ended.
    expect(await store.read(SWEEP_LOCK_KEY)).toBeNull();
  });

  it('a message whose claim fails open is not counted as answered, and the gap it was found in is kept and swept again', async () => {
    // A silence of 3 s, then a claim that ends it: the store records the gap.
    let now = Date.now() - 10_000;
    const store = new MemoryStore({ now: () => now, gapMs: 1000 });
    const owner = { instance: 'hub', role: 'hub' } as const;
    await store.claim(['before'], owner);
    const ts = ((now + 1000) / 1000).toFixed(6);
    api.addMessage('C0GAP', { ts, user: 'U0PERSON', text: '<@UAUTOHUB> anyone?' });
    now += 3000;
    await store.claim(['after'], owner);
    let answer: 'claimed' | 'fail-open' = 'fail-open';
    const injected: string[] = [];
    const hub = sweeper(
      store,
      'hub',
      injected,
      () => answer,
      () => now,
    );

    const first = await hub.maybeSweep(await store.look(owner, 3000, 0));
    expect(first).toMatchObject({ answered: 0, unsure: 1 });
    const again = await store.look(owner, 3000, 0);
    expect(again.gap).not.toBeNull();
    answer = 'claimed';
    expect(await hub.maybeSweep(again)).toMatchObject({ answered: 1, unsure: 0 });
    expect(injected).toEqual([ts, ts]);
    expect((await store.look(owner, 3000, 0)).gap).toBeNull();
  });

  it('a copy hands nothing to its listeners for a found message whose claim fails open', async () => {
    const store = new MemoryStore();
    store.claim = async () => ({ kind: 'fail-open', reason: 'test: the store did not answer' });
    const copy = await startCopy({ role: 'cloud', webApiUrl: api.url, store, env: { AUTOHUB_REAPER_MS: '60000' } });
    try {
      const envelope = {
        ...mentionEnvelope({ eventId: 'Ev-catchup-C0OPEN-1700009200.000001', ts: '1700009200.000001', channel: 'C0OPEN' }),
        autohub_catchup: true,
      };
      expect(await copy.runner.inject(envelope)).toBe('fail-open');
      // A turn handed to the runner is counted at once, before any await.
      expect(copy.runner.inFlight + copy.runner.queued).toBe(0);
      expect(copy.lines.some((l) => l.event === 'catchup.unsure')).toBe(true);
    } finally {
      await copy.stop();
    }
  });

  it('a copy stopped mid-sweep lets the lock go and records nothing: the next copy sweeps at once', async () => {
    for (const channel of ['C0STOP1', 'C0STOP2'])
      api.addMessage(channel, { ts: (Date.now() / 1000 - 2).toFixed(6), user: 'U0PERSON', text: '<@UAUTOHUB> hello?' });
    // The first history read is slow: the stop comes while the sweep waits for it.
    api.script('conversations.history', { status: 200, delayMs: 1500, body: { ok: true, messages: [] } });
    const store = new MemoryStore();
    const injected: string[] = [];
    const hub = sweeper(store, 'hub', injected);
    const look = { sinceServedMs: 5000, gap: null, nowMs: Date.now() };
    const sweeping = hub.maybeSweep(look);
    await eventually(async () => /^hub:/.test((await store.read(SWEEP_LOCK_KEY)) ?? ''), 'the hub to hold the lock');
    await hub.stop(50);
    expect(await store.read(SWEEP_LOCK_KEY)).toBeNull();
    expect(await sweeping).toBeUndefined();
    expect(injected).toEqual([]);
    expect(await store.read(STATUS_KEYS.sweep)).toBeNull();
    expect(await hub.maybeSweep(look)).toBeUndefined();
    const cloud = sweeper(store, 'cloud', []);
    expect(await cloud.maybeSweep(look)).toMatchObject({ instance: 'cloud' });
  });

  it('a copy that dies mid-sweep holds the lock a quarter of the retry window, not two minutes', async () => {
    expect(sweepLockMs(360_000)).toBe(90_000);
    expect(sweepLockMs(3_600_000)).toBe(120_000);
    expect(sweepLockMs(1000)).toBe(1000);
    let now = Date.now();
    const store = new MemoryStore({ now: () => now });
    // Frozen in a history read that does not come back while the clock runs on.
    api.script('conversations.history', { status: 200, delayMs: 1500, body: { ok: true, messages: [] } });
    const frozen = sweeper(store, 'hub', [], undefined, () => now, 4000);
    const look = { sinceServedMs: 5000, gap: null, nowMs: Date.now() };
    const stuck = frozen.maybeSweep(look);
    await eventually(async () => /^hub:/.test((await store.read(SWEEP_LOCK_KEY)) ?? ''), 'the hub to hold the lock');
    const cloud = sweeper(store, 'cloud', [], undefined, () => now, 4000);
    expect(await cloud.maybeSweep(look)).toBeUndefined();
    now += sweepLockMs(4000);
    expect(await cloud.maybeSweep(look)).toMatchObject({ instance: 'cloud' });
    await stuck;
  });

  it('a copy shut down gracefully mid-sweep lets the lock go', async () => {
    api.script('conversations.history', { status: 200, delayMs: 3000, body: { ok: true, messages: [] } });
    const store = new MemoryStore();
    await store.claim(['served-before'], { instance: 'hub', role: 'hub' });
    const env = { AUTOHUB_CATCHUP_RETRY_WINDOW_MS: '100', AUTOHUB_CATCHUP_EVERY_MS: '100', AUTOHUB_CATCHUP_PACE_MS: '0', AUTOHUB_REAPER_MS: '200' };
    const copy = await startCopy({ role: 'cloud', webApiUrl: api.url, store, env });
    try {
      await eventually(async () => /^cloud-test:/.test((await store.read(SWEEP_LOCK_KEY)) ?? ''), 'the copy to start a sweep');
    } finally {
      await copy.stop();
    }
    expect(await store.read(SWEEP_LOCK_KEY)).toBeNull();
  });
});
