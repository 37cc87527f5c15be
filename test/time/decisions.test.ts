/**
 * The small pure decisions the copies lean on, as tables: when a
 * failed turn gets another run, when the peer's loss calls for a look, and a
 * deadline that answers for a call that did not.
 */
import { describe, expect, it } from 'vitest';
import { peerTransition } from '../../lib/liveness/index.js';
import { DEFAULT_RETRY, releaseVerdict } from '../../lib/store/index.js';
import { withDeadline } from '../../lib/time/index.js';

describe('releaseVerdict', () => {
  const policy = DEFAULT_RETRY; // 4 runs within 10 minutes
  it.each([
    ['a first failure, early', { attempts: 1, firstAt: 0, now: 1_000, delayMs: 2_000 }, 'retry'],
    ['the runs spent (4 of 4)', { attempts: 4, firstAt: 0, now: 1_000, delayMs: 2_000 }, 'dead'],
    ['a run that only waited for a window is free: not counted', { attempts: 4, firstAt: 0, now: 1_000, delayMs: 2_000, free: true }, 'retry'],
    ['the next run would start past the window', { attempts: 2, firstAt: 0, now: 599_000, delayMs: 2_000 }, 'dead'],
    ['a free run past the window is dead all the same', { attempts: 1, firstAt: 0, now: 599_000, delayMs: 2_000, free: true }, 'dead'],
  ])('%s: %s', (_name, input, verdict) => {
    expect(releaseVerdict({ ...input, policy })).toBe(verdict);
  });
});

describe('peerTransition', () => {
  it.each([
    ['unknown', { status: 200, draining: false }, { state: 'up', look: false }],
    ['up', undefined, { state: 'down', look: true }],
    ['up', { status: 503, draining: true }, { state: 'down', look: true }],
    // Down and still down: one look was made on the change, none more.
    ['down', undefined, { state: 'down', look: false }],
    ['down', { status: 200, draining: false }, { state: 'up', look: false }],
  ] as const)('%s, then %j: %j', (previous, answered, expected) => {
    expect(peerTransition(previous, answered)).toEqual(expected);
  });
});

describe('withDeadline', () => {
  it('answers for a call that never settles, at its deadline', async () => {
    expect(await withDeadline(new Promise<string>(() => {}), 10, () => 'fail-open')).toBe('fail-open');
  });
  it('passes on a call that settles in time', async () => {
    expect(await withDeadline(Promise.resolve('claimed'), 1_000, () => 'fail-open')).toBe('claimed');
  });
  it('passes on a rejection in time as a rejection (the caller classifies it)', async () => {
    await expect(withDeadline(Promise.reject(new Error('refused')), 1_000, () => 'fail-open')).rejects.toThrow(/refused/);
  });
});
