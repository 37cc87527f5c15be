import { describe, expect, it } from 'vitest';
import { sweepWindow } from '../../lib/catchup/index.js';

const NOW = 1_800_000_000_000;
const base = { now: NOW, lastSweptTo: undefined, retryWindowMs: 360_000, marginMs: 60_000, maxMs: 24 * 3_600_000 };

describe('sweepWindow', () => {
  it('is not due while Slack still retries what was sent since the last claim', () => {
    expect(sweepWindow({ ...base, sinceServedMs: 300_000 })).toBeUndefined();
  });
  it('is due past the retry window: from the last claim less the margin, to a little before now', () => {
    expect(sweepWindow({ ...base, sinceServedMs: 20 * 60_000 })).toEqual({ from: NOW - 21 * 60_000, to: NOW - 5_000 });
  });
  it('starts where the last sweep ended when that is later, and is not due again until the retry window has passed', () => {
    expect(sweepWindow({ ...base, sinceServedMs: 3_600_000, lastSweptTo: NOW - 60_000 })).toBeUndefined();
    expect(sweepWindow({ ...base, sinceServedMs: 3_600_000, lastSweptTo: NOW - 600_000 })).toEqual({ from: NOW - 660_000, to: NOW - 5_000 });
  });
  it('while nothing is claimed, sweeps no more often than every `everyMs`, each from where the last ended', () => {
    const idle = { ...base, sinceServedMs: 5 * 3_600_000, everyMs: 900_000 };
    expect(sweepWindow({ ...idle, lastSweptTo: NOW - 600_000 })).toBeUndefined();
    expect(sweepWindow({ ...idle, lastSweptTo: NOW - 900_000 })).toEqual({ from: NOW - 960_000, to: NOW - 5_000 });
  });

  it('reaches back at most the catch-up window', () => {
    expect(sweepWindow({ ...base, sinceServedMs: 48 * 3_600_000 })?.from).toBe(NOW - 24 * 3_600_000);
  });
  it('a fresh store (no claim ever) is not swept: there is no outage to catch up on', () => {
    expect(sweepWindow({ ...base, sinceServedMs: null })).toBeUndefined();
  });
});
