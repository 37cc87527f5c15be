import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { classifySetNxReply, combineOutcomes, CLAIMED, DUPLICATE, failOpen } from '../../lib/store/index.js';

describe('classifySetNxReply', () => {
  it.each([
    ['OK', 'claimed'],
    [null, 'duplicate'],
    ['Aborted', 'fail-open'],
    [{}, 'fail-open'],
    [undefined, 'fail-open'],
    ['ok', 'fail-open'],
    [0, 'fail-open'],
    ['', 'fail-open'],
    [[null], 'fail-open'],
  ])('reply %j classifies as %s', (reply, kind) => {
    expect(classifySetNxReply(reply).kind).toBe(kind);
  });

  it('a fail-open names the reply it could not read', () => {
    expect(classifySetNxReply('Aborted')).toEqual({ kind: 'fail-open', reason: 'unexpected SET NX reply "Aborted"' });
  });

  fcTest.prop([fc.anything()])('only null is ever a duplicate', (reply) => {
    expect(classifySetNxReply(reply).kind === 'duplicate').toBe(reply === null);
  });

  fcTest.prop([fc.anything()])('only "OK" is ever a claim', (reply) => {
    expect(classifySetNxReply(reply).kind === 'claimed').toBe(reply === 'OK');
  });
});

describe('combineOutcomes', () => {
  it('is a duplicate when any key is already taken', () => {
    expect(combineOutcomes([CLAIMED, DUPLICATE])).toBe(DUPLICATE);
    expect(combineOutcomes([failOpen('x'), DUPLICATE])).toBe(DUPLICATE);
  });
  it('is a claim only when every key is claimed', () => {
    expect(combineOutcomes([CLAIMED, CLAIMED])).toBe(CLAIMED);
    expect(combineOutcomes([CLAIMED, failOpen('timeout')])).toEqual(failOpen('timeout'));
  });
  it('fails open with no keys at all', () => {
    expect(combineOutcomes([]).kind).toBe('fail-open');
  });
});
