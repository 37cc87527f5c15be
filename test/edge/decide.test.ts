import { describe, expect, it } from 'vitest';
import { cloudAnswered, firstStep, hubAnswered, legTimeout, probeSaysUp } from '../../lib/edge/index.js';

const T = 1_700_000_000_000;

describe('firstStep', () => {
  it.each([
    [false, undefined, 0, 'hub'],
    [false, T - 1000, 0, 'hub'],
    [true, undefined, 0, 'probe'],
    [true, T - 1000, 0, 'cloud'],
    [true, T - 29_999, 0, 'cloud'],
    [true, T - 30_000, 0, 'probe'],
    [true, T - 60_000, 0, 'probe'],
    [true, T - 300_000, 0, 'probe'],
  ] as const)('retry=%s, hub down at %s -> %s', (isRetry, hubDownAt, _, step) => {
    expect(firstStep({ isRetry, hubDownAt, now: T, downTtlMs: 30_000 })).toBe(step);
  });
});

describe('leg verdicts', () => {
  // hub: the hub answered (its answer goes to Slack); verified: the same when the edge checked the signature itself,
  // so a 401 means the hub cannot check it (a stale secret): fail over. probe: the health probe says up. cloud: the cloud answered.
  it.each([
    [{ kind: 'answered', status: 200 }, true, true, true, true],
    [{ kind: 'answered', status: 401 }, true, false, false, true],
    [{ kind: 'answered', status: 530 }, false, false, false, false],
    [{ kind: 'answered', status: 502 }, false, false, false, false],
    [{ kind: 'answered', status: 503 }, false, false, false, false],
    [{ kind: 'timeout' }, false, false, false, false],
    [{ kind: 'unreachable' }, false, false, false, false],
  ] as const)('%j: hub answered %s (%s with the signature verified), probe up %s, cloud answered %s', (result, hub, verified, probe, cloud) => {
    expect(hubAnswered(result)).toBe(hub);
    expect(hubAnswered(result, true)).toBe(verified);
    expect(probeSaysUp(result)).toBe(probe);
    expect(cloudAnswered(result)).toBe(cloud);
  });
});

describe('legTimeout', () => {
  it("is the leg's own timeout while the budget allows, then what is left, never negative", () => {
    expect(legTimeout(1400, T, T, 2800)).toBe(1400);
    expect(legTimeout(1300, T, T + 1400, 2800)).toBe(1300);
    expect(legTimeout(1300, T, T + 1700, 2800)).toBe(1100);
    expect(legTimeout(1300, T, T + 3000, 2800)).toBe(0);
  });
});
