/**
 * `npm run verify` blamed the shared store when the hub was simply
 * down (the cloud rightly claimed the hub's probe afresh, read as "the copies
 * do not share one claim store"). Pure table over the answers.
 */
import { describe, expect, it } from 'vitest';
import type { HealthAnswer, ProbeAnswer } from '../../lib/verify/probe.js';
import { verifyFailures } from '../../lib/verify/checks.js';

const health = (target: string): HealthAnswer => ({ target, status: 200, body: { status: 'ok', store: { kind: 'upstash', ok: true } }, ms: 5 });
const probe = (what: string, status: ProbeAnswer['status'], claim: string | null): ProbeAnswer => ({
  target: 'x',
  what,
  status,
  route: null,
  role: null,
  instance: null,
  claim,
  ms: 5,
});
const base = {
  edgeHealth: health('edge'),
  hubHealth: health('hub'),
  cloudHealth: health('cloud'),
  edgeFirst: probe('a first delivery', 200, 'claimed'),
  edgeRetry: probe('its retry', 200, 'duplicate'),
  cloudFirst: probe('a first delivery to the cloud', 200, 'claimed'),
};

describe('verifyFailures', () => {
  it('all holds: no failure', () => {
    expect(
      verifyFailures({ ...base, hubFirst: probe('to the hub', 200, 'claimed'), cloudRetryOfHub: probe('its retry to the cloud', 200, 'duplicate') }),
    ).toEqual([]);
  });

  it('an edge sealing its inbox with a key the cloud copy does not hold (before: not noticed, and every kept delivery was dropped unopened)', () => {
    const withKeys = (h: HealthAnswer, key: Record<string, unknown>): HealthAnswer => ({ ...h, body: { ...h.body, ...key } });
    const failures = verifyFailures({
      ...base,
      edgeHealth: withKeys(health('edge'), { inbox: { size: 0, store_key_id: 'EdgeKey1' } }),
      hubHealth: withKeys(health('hub'), { store_key_ids: ['EdgeKey1'] }),
      cloudHealth: withKeys(health('cloud'), { store_key_ids: ['OtherKey', 'OldKey00'] }),
    });
    expect(failures).toEqual([
      expect.stringMatching(/^cloud: cannot open what the edge keeps \(the edge seals with store key EdgeKey1, this copy holds OtherKey, OldKey00\)/),
    ]);
  });

  it('the copies on two stores: the cloud claims the retry of what the hub claimed', () => {
    const failures = verifyFailures({
      ...base,
      hubFirst: probe('to the hub', 200, 'claimed'),
      cloudRetryOfHub: probe('its retry to the cloud', 200, 'claimed'),
    });
    expect(failures).toEqual([expect.stringMatching(/do not share one claim store/)]);
  });

  it('the hub down: its probe fails, and the store is not blamed for the cloud claiming the retry', () => {
    const failures = verifyFailures({
      ...base,
      hubFirst: probe('to the hub', 'unreachable', null),
      cloudRetryOfHub: probe('its retry to the cloud', 200, 'claimed'),
    });
    expect(failures.some((f) => /^hub: to the hub was not accepted \(unreachable\)/.test(f))).toBe(true);
    expect(failures.some((f) => /do not share one claim store/.test(f))).toBe(false);
    expect(failures.some((f) => /was not checked: the hub did not claim/.test(f))).toBe(true);
  });
});
