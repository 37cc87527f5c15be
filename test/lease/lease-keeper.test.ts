import { describe, expect, it } from 'vitest';
import { createMemoryLogger, silentLogger } from '../../lib/log/index.js';
import { LeaseKeeper, TurnLease } from '../../lib/lease/index.js';
import { DEFAULT_RETRY, type EndReply, type LeaseReply, type ReleaseReply } from '../../lib/store/index.js';

/** A store whose renewal answers are scripted, on a clock the test moves. */
function rig(answers: LeaseReply[]) {
  let t = 1_000_000;
  const calls: number[] = [];
  const store = {
    renew: async (leases: readonly { key: string }[]) => {
      calls.push(leases.length);
      const a = answers.shift() ?? 'ok';
      return leases.map(() => a);
    },
    commit: async () => 'ok' as LeaseReply,
  };
  const slept: number[] = [];
  const sleepers: Array<() => void> = [];
  /** The keeper's waits end only when the test says (wake), and move the test's clock by what they waited. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      slept.push(ms);
      sleepers.push(() => {
        t += ms;
        resolve();
      });
    });
  const keeper = new LeaseKeeper(store, { leaseMs: 10_000, renewMs: 3_000 }, silentLogger, () => t, sleep);
  const wake = () => {
    for (const s of sleepers.splice(0)) s();
  };
  return { keeper, calls, store, slept, wake, advance: (ms: number) => void (t += ms), now: () => t };
}

type LeaseStore = ConstructorParameters<typeof TurnLease>[0]['store'];

/** A TurnLease on the rig's keeper and clock (lease 10 s), over a store that answers ok unless told otherwise. */
function leaseOn(
  r: ReturnType<typeof rig>,
  store: Partial<LeaseStore> = {},
  restore?: () => Promise<EndReply>,
  extra: Partial<ConstructorParameters<typeof TurnLease>[0]> = {},
): TurnLease {
  return new TurnLease({
    store: {
      commit: async () => 'ok',
      finish: async () => 'ok',
      release: async () => 'retry',
      deadLetter: async () => 'ok',
      markStream: async () => 'ok',
      ...store,
    },
    keeper: r.keeper,
    key: 'k',
    token: 1,
    settings: { leaseMs: 10_000 },
    retry: DEFAULT_RETRY,
    log: silentLogger,
    now: r.now,
    sentAt: r.now(),
    ...(restore ? { restore } : {}),
    ...extra,
  });
}

describe('LeaseKeeper: a lease is given up only when it could have lapsed', () => {
  it('renews every lease a copy holds in one request', async () => {
    const { keeper, calls } = rig(['ok']);
    for (const k of ['a', 'b', 'c']) keeper.add(k, 1, 1_010_000, () => {});
    await keeper.renewNow();
    expect(calls).toEqual([3]);
  });

  it('makes no request at all when it holds nothing', async () => {
    const { keeper, calls } = rig([]);
    await keeper.renewNow();
    expect(calls).toEqual([]);
  });

  it('two failed renewals in a row are survived: the lease is still held until claim + lease', async () => {
    const { keeper, advance } = rig(['unreachable', 'unreachable', 'ok']);
    const lost: string[] = [];
    keeper.add('k', 1, 1_010_000, (reason) => lost.push(reason));
    advance(3_000);
    await keeper.renewNow();
    advance(3_000);
    await keeper.renewNow();
    expect(lost).toEqual([]);
    advance(3_000);
    await keeper.renewNow();
    expect(lost).toEqual([]);
    expect(keeper.heldUntil('k')).toBe(1_009_000 + 10_000);
  });

  it('renewals failing past the lease give it up', async () => {
    const { keeper, advance } = rig(['unreachable', 'unreachable', 'unreachable', 'unreachable']);
    const lost: string[] = [];
    keeper.add('k', 1, 1_010_000, (reason) => lost.push(reason));
    for (let i = 0; i < 3; i++) {
      advance(3_000);
      await keeper.renewNow();
    }
    expect(lost).toEqual([]);
    advance(3_000);
    await keeper.renewNow();
    expect(lost).toEqual(['renewals failed for longer than the lease']);
    expect(keeper.size).toBe(0);
  });

  it('a renewal the store says is lost gives the lease up at once', async () => {
    const { keeper } = rig(['lost']);
    const lost: string[] = [];
    keeper.add('k', 1, 1_010_000, (reason) => lost.push(reason));
    await keeper.renewNow();
    expect(lost).toEqual(['renewal: another copy holds the turn']);
  });
});

describe('LeaseKeeper: a lease the store forgot is written again, not given up', () => {
  it("a renewal that finds no record restores it through the lease's hook, and the lease holds on from the restore", async () => {
    // The bug: "missing" read as "another copy holds the turn": after a FLUSHALL the turn stood down and nobody answered.
    const { keeper, advance, now } = rig(['missing']);
    const lost: string[] = [];
    const restores: number[] = [];
    keeper.add(
      'k',
      1,
      1_010_000,
      (reason) => lost.push(reason),
      async () => {
        restores.push(now());
        return 'ok';
      },
    );
    advance(3_000);
    await keeper.renewNow();
    expect(lost).toEqual([]);
    expect(restores).toEqual([1_003_000]);
    expect(keeper.heldUntil('k')).toBe(1_003_000 + 10_000);
    expect(keeper.size).toBe(1);
  });

  it('a lease that lapsed before the store forgot it waits two renewals before writing it again: the copy that took it over meanwhile restores first, and this one stands down', async () => {
    // The bug: a hub frozen past its lease woke after a FLUSHALL, found its record missing and wrote it again at once,
    // before the cloud copy that had taken the turn over renewed; both copies answered.
    const r = rig(['missing']);
    let theirs = false;
    const lost: string[] = [];
    const restoresTried: number[] = [];
    r.keeper.add(
      'k',
      1,
      1_010_000,
      (reason) => lost.push(reason),
      async () => {
        restoresTried.push(r.now());
        return theirs ? 'lost' : 'ok';
      },
    );
    r.advance(12_000);
    await r.keeper.renewNow();
    const restoring = r.keeper.restore('k');
    // Waiting: nothing written yet. Meanwhile the other copy's renewal finds the record missing too, and writes its own.
    expect(restoresTried).toEqual([]);
    expect(r.slept).toEqual([6_000]);
    theirs = true;
    r.wake();
    await expect(restoring).resolves.toBe('lost');
    expect(restoresTried).toEqual([1_018_000]);
    expect(lost).toEqual(['restore: another copy holds the turn']);
    expect(r.keeper.size).toBe(0);
  });

  it('a lapsed lease the store forgot, which no copy took over, is written again after the wait and runs on: nothing is lost', async () => {
    const r = rig(['missing']);
    r.keeper.add(
      'k',
      1,
      1_010_000,
      () => {},
      async () => 'ok',
    );
    r.advance(12_000);
    await r.keeper.renewNow();
    const restoring = r.keeper.restore('k');
    r.wake();
    await expect(restoring).resolves.toBe('ok');
    expect(r.keeper.heldUntil('k')).toBe(1_018_000 + 10_000);
    expect(r.keeper.size).toBe(1);
  });

  it('a restore that finds another record there gives the lease up', async () => {
    const { keeper } = rig(['missing']);
    const lost: string[] = [];
    keeper.add(
      'k',
      1,
      1_010_000,
      (reason) => lost.push(reason),
      async () => 'lost',
    );
    await keeper.renewNow();
    expect(lost).toEqual(['restore: another copy holds the turn']);
    expect(keeper.size).toBe(0);
  });

  it('a lease without a restore hook is given up when its record is missing', async () => {
    const { keeper } = rig(['missing']);
    const lost: string[] = [];
    keeper.add('k', 1, 1_010_000, (reason) => lost.push(reason));
    await keeper.renewNow();
    expect(lost).toEqual(['the store forgot the turn, and it cannot be written again']);
  });

  it('while a forgotten record cannot be written again (the store went away), the lease is kept past its end, and restored once the store answers', async () => {
    const { keeper, advance } = rig(['missing', 'unreachable', 'unreachable', 'unreachable', 'unreachable', 'missing']);
    const lost: string[] = [];
    const restoreReplies: Array<'ok' | 'unreachable'> = ['unreachable', 'ok'];
    let restores = 0;
    keeper.add(
      'k',
      1,
      1_010_000,
      (reason) => lost.push(reason),
      async () => {
        restores++;
        return restoreReplies.shift() ?? 'ok';
      },
    );
    for (let i = 0; i < 6; i++) {
      advance(3_000);
      await keeper.renewNow();
    }
    // 18 s in, past claim + lease (10 s): still held, because nobody can hold a record that does not exist.
    expect(lost).toEqual([]);
    expect(restores).toBe(2);
    expect(keeper.heldUntil('k')).toBe(1_018_000 + 10_000);
  });

  it('a restore hook that throws is a restore that could not be made: the lease is kept, the renewal does not reject', async () => {
    const { keeper, advance, wake } = rig(['missing']);
    const lost: string[] = [];
    keeper.add(
      'k',
      1,
      1_010_000,
      (reason) => lost.push(reason),
      () => {
        throw new Error('a bug in the hook');
      },
    );
    // Past claim + lease: an unanswered renewal would give the lease up now; a missing record does not.
    advance(11_000);
    await expect(keeper.renewNow()).resolves.toBeUndefined();
    const restoring = keeper.restore('k');
    wake();
    await expect(restoring).resolves.toBe('unreachable');
    expect(lost).toEqual([]);
    expect(keeper.size).toBe(1);
  });

  it('a commit that finds no record restores it and commits; one that cannot restore says the store is unavailable', async () => {
    const r = rig([]);
    const replies: LeaseReply[] = ['missing', 'missing'];
    const restored: Array<'ok' | 'unreachable'> = ['ok', 'unreachable'];
    const lease = leaseOn(r, { commit: async () => replies.shift() ?? 'ok' }, async () => restored.shift() ?? 'ok');
    lease.start();
    r.advance(9_000);
    expect(await lease.commit()).toBe(true);
    r.advance(9_000);
    await expect(lease.commit()).rejects.toThrow(/commit/);
    expect(lease.lost).toBe(false);
  });
});

describe("TurnLease's end: a turn whose record the store forgot", () => {
  const finishes: LeaseReply[] = [];
  const make = (r: ReturnType<typeof rig>, releases: ReleaseReply[], restores: EndReply[]) =>
    leaseOn(
      r,
      {
        finish: async () => {
          finishes.push('ok');
          return finishes.length === 1 ? 'missing' : 'ok';
        },
        release: async () => releases.shift() ?? 'retry',
        deadLetter: async () => 'missing',
      },
      async () => restores.shift() ?? 'ok',
    );

  it('is written again and then handed back for its retry, not dropped as lost (lost only when it cannot be written again)', async () => {
    // The bug: a turn that failed right after a FLUSHALL was "lost": no retry, and nobody answered.
    const lease = make(rig([]), ['missing', 'retry'], ['ok']);
    lease.start();
    expect(await lease.fail({ kind: 'transient', ambiguous: true, reason: 'http 500' })).toMatchObject({ reply: 'retry' });
    const stuck = make(rig([]), ['missing'], ['unreachable']);
    stuck.start();
    expect(await stuck.fail({ kind: 'transient', ambiguous: true, reason: 'http 500' })).toEqual({ reply: 'lost' });
  });

  it('that finished is written again and finished, so it is kept done (a later delivery of it is a duplicate)', async () => {
    const restores: EndReply[] = ['ok'];
    const lease = make(rig([]), [], restores);
    lease.start();
    await lease.finish('1700000000.000100');
    expect(finishes).toHaveLength(2);
    expect(restores).toEqual([]);
  });
});

describe('TurnLease.commit: no round trip while the lease is provably held', () => {
  const make = (r: ReturnType<typeof rig>, commits: string[]) =>
    leaseOn(r, {
      commit: async () => {
        commits.push('commit');
        return 'ok';
      },
    });

  it('a young lease commits locally', async () => {
    const r = rig([]);
    const commits: string[] = [];
    const lease = make(r, commits);
    lease.start();
    r.advance(5_000);
    expect(await lease.commit()).toBe(true);
    expect(commits).toEqual([]);
  });

  it('a lease near its end asks the store', async () => {
    const r = rig([]);
    const commits: string[] = [];
    const lease = make(r, commits);
    lease.start();
    r.advance(9_000);
    expect(await lease.commit()).toBe(true);
    expect(commits).toEqual(['commit']);
  });

  it('a lost lease never commits', async () => {
    const r = rig(['lost']);
    const lease = make(r, []);
    lease.start();
    await r.keeper.renewNow();
    expect(lease.lost).toBe(true);
    expect(await lease.commit()).toBe(false);
  });
});

describe('TurnLease.finish: an end the store did not answer', () => {
  /** A lease whose finish the store answers with `replies` in turn ('unreachable' once they run out); its waits move the rig's clock. */
  const unanswered = (replies: LeaseReply[]) => {
    const r = rig([]);
    const log = createMemoryLogger();
    const sent: LeaseReply[] = [];
    const slept: number[] = [];
    const lease = leaseOn(
      r,
      {
        finish: async () => {
          const reply = replies.shift() ?? 'unreachable';
          sent.push(reply);
          return reply;
        },
      },
      undefined,
      {
        log,
        sleep: async (ms) => {
          slept.push(ms);
          r.advance(ms);
        },
      },
    );
    lease.start();
    return { r, lease, log, sent, slept };
  };

  it('is sent again while the lease is held, so the turn is kept done (before: sent once, the lease lapsed, and a takeover ran a command again)', async () => {
    const { r, lease, log, sent } = unanswered(['unreachable', 'unreachable', 'ok']);
    await lease.finish(null);
    expect(sent).toEqual(['unreachable', 'unreachable', 'ok']);
    expect(r.keeper.heldUntil('k')).toBe(0);
    expect(log.lines.map((l) => l.event)).toEqual(['lease.finish_resent']);
  });

  it('a resend that finds the turn done is the first send landing (its answer lost), not a failure', async () => {
    const { lease, log, sent } = unanswered(['unreachable', 'lost']);
    await lease.finish(null);
    expect(sent).toEqual(['unreachable', 'lost']);
    expect(log.lines.map((l) => l.event)).toEqual(['lease.finish_resent']);
  });

  it('is given up once the lease could lapse (a store away longer than the lease leaves the turn to a takeover)', async () => {
    const { lease, log, sent, slept } = unanswered([]);
    await lease.finish(null);
    // Sent at 0, then after 0.5, 1, 2 and 4 s: the next wait (8 s) would pass the lease's 10 s.
    expect(slept).toEqual([500, 1000, 2000, 4000]);
    expect(sent).toHaveLength(5);
    expect(log.lines.map((l) => l.event)).toEqual(['lease.finish_failed']);
  });
});
