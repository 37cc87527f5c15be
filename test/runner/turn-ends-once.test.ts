/**
 * A turn that ran is ended once, by its handle: the lease of each run hears
 * one end (finished, handed back, or dead-lettered), whichever way the run
 * went. Before, the handle finished a turn's lease and the runner then
 * finished it again (a second end asked of every answered lease, kept out of
 * the store only by the lease's own guard), and read the handle's state to
 * end a stood-down run itself: two owners of one act. Real Bolt, the real
 * WebClient, the fake Web API, the Upstash store over a real Redis.
 */
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { TurnLease } from '../../lib/lease/index.js';
import type { TakeTurn } from '../../lib/turn/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

const OWNER = 'U0OWNER';

const turn: TakeTurn = async (request, ctx) => {
  if (request.text.includes('silent')) return undefined;
  if (request.text.includes('ignore')) return new Promise<never>(() => {});
  // Returns after its cut-off (deadline 2 s + grace 200 ms), ignoring ctx.signal: its reply is kept back at the fence.
  if (request.text.includes('late')) return new Promise<string>((resolve) => setTimeout(() => resolve('too late'), 3000));
  if (request.text.includes('listen')) {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    throw ctx.signal.reason;
  }
  return 'fine';
};

// Every end asked of a lease (finish, or fail: a retry or a dead letter), recorded and passed through.
const finish = vi.spyOn(TurnLease.prototype, 'finish');
const fail = vi.spyOn(TurnLease.prototype, 'fail');
afterAll(() => {
  finish.mockRestore();
  fail.mockRestore();
});

/** Ends asked of each run's lease ("key#token"): `finish` and `fail` calls. */
function endsPerLease(): Map<string, string[]> {
  const ends = new Map<string, string[]>();
  const add = (what: string, leases: unknown[]) => {
    for (const lease of leases as TurnLease[]) {
      const id = `${lease.key}#${lease.token}`;
      ends.set(id, [...(ends.get(id) ?? []), what]);
    }
  };
  add('finish', finish.mock.contexts);
  add('fail', fail.mock.contexts);
  return ends;
}

describe('a turn that ran is ended once', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({
    role: 'hub',
    api,
    redis: fx,
    turn,
    env: {
      AUTOHUB_TURN_RETRY_DELAY_MS: '100',
      AUTOHUB_TURN_ATTEMPTS: '3',
      AUTOHUB_TURN_RETRY_WINDOW_MS: '2000',
      AUTOHUB_LEASE_MS: '3000',
      AUTOHUB_LEASE_RENEW_MS: '500',
      AUTOHUB_REAPER_MS: '60000',
      AUTOHUB_OWNER: OWNER,
    },
  });
  let n = 0;
  const mention = async (eventId: string, text = 'hello') => {
    const ts = `1700050000.${String(++n).padStart(6, '0')}`;
    const ack = await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts, text: `<@UAUTOHUB> ${text}` }), { signingSecret: SECRET });
    expect(ack.status).toBe(200);
  };
  const state = async (eventId: string) => {
    const dead = (await hub.store.listDead(100)) ?? [];
    return dead.some((d) => d.eventId === eventId) ? 'dead' : undefined;
  };
  const settled = () => eventually(() => hub.runner.inFlight === 0 && hub.runner.queued === 0 && hub.runner.conversing === 0, 'every turn over');

  beforeEach(() => {
    finish.mockClear();
    fail.mockClear();
  });

  it('an answered turn: its lease is finished once, not again by the runner', async () => {
    await mention('Ev-once-ok');
    await eventually(() => repliesTo(api, 'Ev-once-ok').length === 1, 'the reply');
    await settled();
    await eventually(() => finish.mock.calls.length > 0, 'the lease finished');
    expect([...endsPerLease().values()]).toEqual([['finish']]);
  });

  it('a turn with nothing to say: finished once', async () => {
    await mention('Ev-once-silent', 'silent');
    await eventually(() => hub.lines.some((l) => l.event === 'turn.no_reply' && l.eventId === 'Ev-once-silent'), 'the turn over');
    await settled();
    await eventually(() => finish.mock.calls.length > 0, 'the lease finished');
    expect([...endsPerLease().values()]).toEqual([['finish']]);
  });

  it('a run that fails once and is retried: the failed run is handed back once, the retry finished once', async () => {
    api.script('chat.postMessage', { status: 200, body: { ok: false, error: 'internal_error' } });
    await mention('Ev-once-retry');
    await eventually(() => repliesTo(api, 'Ev-once-retry').length === 1, 'the retry answered', 10_000);
    await settled();
    await eventually(() => finish.mock.calls.length > 0, 'the retry finished');
    expect([...endsPerLease().values()].sort()).toEqual([['fail'], ['finish']]);
  });

  it('a dead letter: the run is failed once, never finished', async () => {
    api.script('chat.postMessage', { status: 200, body: { ok: false, error: 'channel_not_found' } });
    await mention('Ev-once-dead');
    await eventually(async () => (await state('Ev-once-dead')) === 'dead', 'the dead letter', 10_000);
    await settled();
    expect([...endsPerLease().values()]).toEqual([['fail']]);
  });

  it('turns past their deadline (one cut off that never returns, one cut off that returns later, one that throws the reason in its grace): each failed once', async () => {
    await mention('Ev-once-ignore', 'ignore');
    await mention('Ev-once-late', 'late');
    await mention('Ev-once-listen', 'listen');
    const all = ['Ev-once-ignore', 'Ev-once-late', 'Ev-once-listen'];
    await eventually(async () => (await Promise.all(all.map(state))).every((s) => s === 'dead'), 'all three dead-lettered', 15_000);
    // The late one returns after its cut-off and stands down at the fence: its return is not a second end.
    await eventually(() => hub.lines.some((l) => l.event === 'turn.abandoned' && l.eventId === 'Ev-once-late'), 'the late turn to return', 10_000);
    expect(repliesTo(api, 'Ev-once-late')).toHaveLength(0);
    expect([...endsPerLease().values()]).toEqual([['fail'], ['fail'], ['fail']]);
  });
});
