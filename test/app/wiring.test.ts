import { describe, expect, it, vi } from 'vitest';
import { createMemoryLogger } from '../../lib/log/index.js';
import type { Look, Takeover } from '../../lib/store/index.js';
import type { RefusalRecord } from '../../lib/ratelimit/index.js';
import type { DeadTurn } from '../../lib/lease/index.js';
import { failoverNoter } from '../../app/parts.js';
import { partsOnceWired, wire, type WiredParts } from '../../app/wiring.js';
import { eventually } from '../support/copies.js';

const LEASE_MS = 10_000;

function parts(over: Partial<WiredParts> = {}) {
  const p = {
    runner: {
      unleased: ['e1'],
      capacity: 3,
      inFlight: 2,
      queued: 1,
      pastDeadline: 1,
      waitingOnStore: 2,
      resume: vi.fn(),
      inject: vi.fn(async () => 'claimed' as const),
      storeAnswered: vi.fn(async () => {}),
    },
    reaper: { lookIn: vi.fn(), slotFree: vi.fn() },
    keeper: { size: 4 },
    sweeper: undefined,
    notices: { raise: vi.fn() },
    status: { refusal: vi.fn() },
    refusals: vi.fn(),
    owners: { notice: vi.fn(async () => {}), deadLetter: vi.fn() },
    heartbeat: vi.fn(() => '{}'),
    noteFailover: vi.fn(),
    servingSince: () => Date.parse('2026-01-01T00:00:00Z'),
    log: createMemoryLogger(),
    leaseMs: LEASE_MS,
    storeAllowance: 500_000,
    ...over,
  };
  return { p, wakes: wire(p) };
}

const look = (over: Partial<Look> = {}): Look => ({ taken: [], nextDueMs: null, sinceServedMs: null, gap: null, dead: [], reindexed: 0, ...over });

describe('who wakes whom in a copy (app/wiring.ts)', () => {
  it('a failover at the edge wakes the reaper a lease later, and notes the reason for the status page', () => {
    const { p, wakes } = parts();
    wakes.failover('hub 530');
    expect(p.reaper.lookIn).toHaveBeenCalledWith(LEASE_MS + 250);
    expect(p.noteFailover).toHaveBeenCalledWith('hub 530');
  });

  it("the edge's hint (the other copy holds a lease) wakes the reaper a lease later", () => {
    const { p, wakes } = parts();
    wakes.hint();
    expect(p.reaper.lookIn).toHaveBeenCalledWith(LEASE_MS + 250);
  });

  it('a lost peer wakes the reaper a lease later, and says so', () => {
    const log = createMemoryLogger();
    const { p, wakes } = parts({ log });
    wakes.peerLost('timeout');
    expect(p.reaper.lookIn).toHaveBeenCalledWith(LEASE_MS + 250);
    expect(log.lines).toContainEqual(expect.objectContaining({ event: 'peer.lost', reason: 'timeout', lookInMs: LEASE_MS + 250 }));
  });

  it('a retry handed back has the reaper look when it falls due; a freed slot tells it so', () => {
    const { p, wakes } = parts();
    wakes.lookIn(1234);
    wakes.slotFree();
    expect(p.reaper.lookIn).toHaveBeenCalledWith(1234);
    expect(p.reaper.slotFree).toHaveBeenCalledOnce();
  });

  it('the reaper hands takeovers to the runner and reads its room and its unconfirmed claims from it', () => {
    const { p, wakes } = parts();
    const takeover = { eventId: 'e2' } as unknown as Takeover;
    wakes.resume(takeover, 7);
    expect(p.runner.resume).toHaveBeenCalledWith(takeover, 7);
    expect([wakes.capacity(), wakes.unleased()]).toEqual([3, ['e1']]);
  });

  it("health counts the runner's turns and the keeper's leases", () => {
    expect(parts().wakes.turns()).toEqual({ running: 2, waiting: 1, leases: 4, past_deadline: 1, waiting_on_store: 2 });
  });

  it("a look past 80% of the store's monthly allowance tells the owner; one under it does not", () => {
    const { p, wakes } = parts();
    wakes.look(look({ monthCommands: 399_999 }));
    expect(p.notices.raise).not.toHaveBeenCalled();
    wakes.look(look({ monthCommands: 400_000 }));
    expect(p.notices.raise).toHaveBeenCalledWith('store_allowance', '400000 of 500000 commands this month');
  });

  it('every look reaches the sweeper; a sweep answering mentions from while this copy served tells the owner Slack is not delivering', async () => {
    const sweep = { from: '2026-01-01T01:00:00.000Z', to: '2026-01-01T02:00:00.000Z', answered: 2 };
    const maybeSweep = vi.fn(async () => sweep as never);
    const { p, wakes } = parts({ sweeper: { maybeSweep } });
    const seen = look({ sinceServedMs: 600_000 });
    wakes.look(seen);
    expect(maybeSweep).toHaveBeenCalledWith(seen);
    await eventually(() => vi.mocked(p.notices.raise).mock.calls.length > 0, 'the owner told');
    expect(p.notices.raise).toHaveBeenCalledWith('slack_not_delivering', `2 mention(s) from ${sweep.from} to ${sweep.to}`);
  });

  it("the sweeper's mentions are claimed by the runner", async () => {
    const { p, wakes } = parts();
    await expect(wakes.inject({ event_id: 'e3' })).resolves.toBe('claimed');
    expect(p.runner.inject).toHaveBeenCalledWith({ event_id: 'e3' });
  });

  it('the Web API: an auth failure raises a notice; a refusal reaches both the refusal log and the status page', () => {
    const { p, wakes } = parts();
    wakes.answered({ method: 'chat.postMessage', status: 200, error: 'not_in_channel' });
    expect(p.notices.raise).not.toHaveBeenCalled();
    wakes.answered({ method: 'chat.postMessage', status: 200, error: 'invalid_auth' });
    expect(p.notices.raise).toHaveBeenCalledWith('web_api_auth', 'chat.postMessage: invalid_auth');
    const record = { method: 'chat.postMessage' } as unknown as RefusalRecord;
    wakes.refused(record);
    expect(p.refusals).toHaveBeenCalledWith(record);
    expect(p.status.refusal).toHaveBeenCalledWith(record);
  });

  it("the receiver's faults reach the notices, a dead letter reaches the owners, a notice goes out by DM", async () => {
    const { p, wakes } = parts();
    wakes.failOpen('store timeout');
    expect(p.notices.raise).toHaveBeenCalledWith('claims_fail_open', 'store timeout');
    wakes.appRateLimited({ kind: 'app_rate_limited', teamId: 'T1', apiAppId: 'A1', minuteRateLimited: undefined });
    expect(p.notices.raise).toHaveBeenCalledWith('app_rate_limited', 'workspace T1');
    const dead = { eventId: 'e4' } as unknown as DeadTurn;
    wakes.deadLetter(dead);
    expect(p.owners.deadLetter).toHaveBeenCalledWith(dead);
    await wakes.tell('text', 'web_api_auth');
    expect(p.owners.notice).toHaveBeenCalledWith('text', 'web_api_auth');
  });
});

describe('partsOnceWired: parts built one after the other that wake one another', () => {
  it('a wake taken before the parts exist reaches the parts set later', () => {
    const wired = partsOnceWired();
    const wakes = wire(wired.get);
    const slotFree = wakes.slotFree;
    const { p } = parts();
    wired.set(p);
    slotFree();
    expect(p.reaper.slotFree).toHaveBeenCalledOnce();
  });

  it('a part that wakes another before the copy is wired fails loudly, not silently', () => {
    const wakes = wire(partsOnceWired().get);
    expect(() => wakes.slotFree()).toThrow('a part woke another before the copy was wired');
  });

  it('the wakes are a plain object: awaiting them (or returning them from an async function) resolves to them', async () => {
    const wakes = wire(partsOnceWired().get);
    await expect(Promise.resolve(wakes)).resolves.toBe(wakes);
  });
});

describe('failoverNoter', () => {
  it("the edge's failover reasons reach the status page at most every 10 s", () => {
    let clock = 0;
    const note = vi.fn(async () => {});
    const noteFailover = failoverNoter({ note } as never, () => clock);
    noteFailover('a');
    clock = 9_999;
    noteFailover('b');
    clock = 10_000;
    noteFailover('c');
    expect(note.mock.calls.map((call) => JSON.parse((call as unknown as string[])[1] as string).reason)).toEqual(['a', 'c']);
  });
});
