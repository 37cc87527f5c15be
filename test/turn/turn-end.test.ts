/**
 * The ending of a turn decides its end once: whichever of the run's ends
 * comes first (its answer, its stand-down at the fence, its failure, its
 * cut-off) is the one the lease hears, and every later one gets the same
 * `TurnEnd` without a word to the lease. Before, a cut-off turn that then
 * stood down, or an answered turn the runner then finished, asked its lease
 * for a second end. The lease here records the ends asked of it: counting
 * them is the point.
 */
import { describe, expect, it } from 'vitest';
import { TurnEnding, type EndingLease, type FailedRun } from '../../lib/turn/index.js';
import { TurnDeadlineError } from '../../lib/errors/index.js';
import { silentLogger as quiet } from '../../lib/log/index.js';

function recordingLease(reply: 'retry' | 'dead' = 'dead') {
  const ends: string[] = [];
  const lease: EndingLease = {
    key: 'k',
    attempts: 1,
    lost: false,
    get finished() {
      return ends.length > 0;
    },
    finish: async (ts) => void ends.push(`finish ${ts}`),
    fail: async (failure) => {
      ends.push(`fail ${failure.reason}`);
      return reply === 'retry' ? { reply, retryInMs: 100 } : { reply };
    },
  };
  return { lease, ends };
}

const run = (lease: EndingLease | undefined, expired = false): FailedRun => ({ logFields: {}, expired, own: undefined, leaseForFailure: async () => lease });

describe('a turn ending', () => {
  it('an answer, then the run settling: the lease is finished once, with the answer', async () => {
    const { lease, ends } = recordingLease();
    const ending = new TurnEnding({ lease: () => lease, log: quiet });
    expect(await ending.answered('171.1')).toEqual({ kind: 'answered', ts: '171.1' });
    expect(await ending.settled()).toEqual({ kind: 'answered', ts: '171.1' });
    expect(ends).toEqual(['finish 171.1']);
  });

  it('a cut-off, then the run standing down at the fence: failed once, and the stand-down learns the cut-off', async () => {
    const { lease, ends } = recordingLease();
    const ending = new TurnEnding({ lease: () => lease, log: quiet });
    const cut = ending.failed(new TurnDeadlineError('the retry window is over'), run(lease, true));
    const stood = ending.stoodDown();
    expect(await stood).toEqual(await cut);
    expect(await cut).toMatchObject({ kind: 'dead', recorded: true });
    expect(await ending.answered('171.2')).toMatchObject({ kind: 'dead' });
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatch(/^fail deadline: /);
  });

  it('a failure handed back for a retry: one fail, the retry due as the store said', async () => {
    const { lease, ends } = recordingLease('retry');
    const ending = new TurnEnding({ lease: () => lease, log: quiet });
    expect(await ending.failed(new Error('boom'), run(lease))).toEqual({ kind: 'retry', retryInMs: 100 });
    expect(await ending.settled()).toEqual({ kind: 'retry', retryInMs: 100 });
    expect(ends).toHaveLength(1);
  });

  it('an answer given without a lease: a lease attached before the run settles is finished with that answer, once', async () => {
    const { lease, ends } = recordingLease();
    let attached: EndingLease | undefined;
    const ending = new TurnEnding({ lease: () => attached, log: quiet });
    expect(await ending.answered('171.3')).toEqual({ kind: 'answered', ts: '171.3' });
    attached = lease;
    await ending.settled();
    await ending.settled();
    expect(ends).toEqual(['finish 171.3']);
  });

  it('a failure with no lease to go back through and its deadline not passed: the runner is told to keep it for the store', async () => {
    const ending = new TurnEnding({ lease: () => undefined, log: quiet });
    expect(await ending.failed(new Error('the store is away'), run(undefined))).toMatchObject({ kind: 'unkept' });
  });
});
