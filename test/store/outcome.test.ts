import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { classifyClaimReply } from '../../lib/store/outcome.js';

const kind = (reply: unknown) => classifyClaimReply(reply, undefined).outcome.kind;

describe('classifyClaimReply: a duplicate is a positive answer', () => {
  it.each([
    [['claimed'], 'claimed'],
    [['mine'], 'claimed'],
    [['held:3f1c2a'], 'duplicate'],
    [['held:?'], 'duplicate'],
    [null, 'fail-open'],
    [{}, 'fail-open'],
    ['Aborted', 'fail-open'],
    [[], 'fail-open'],
    [['held:'], 'fail-open'],
    [['OK'], 'fail-open'],
    [['T0s='], 'fail-open'],
    [undefined, 'fail-open'],
    [[null], 'fail-open'],
    [[1], 'fail-open'],
  ])('reply %j classifies as %s', (reply, expected) => {
    expect(kind(reply)).toBe(expected);
  });

  it('a leased claim carries token 1', () => {
    expect(classifyClaimReply(['claimed'], 1).outcome).toEqual({ kind: 'claimed', token: 1 });
  });

  it('open rate-limit windows come back with the claim, in the same round trip', () => {
    const { windows } = classifyClaimReply(['claimed', 'abc:chat.postMessage', '1700000001000', 'abc:views.publish', 'oops'], undefined);
    expect([...windows]).toEqual([['abc:chat.postMessage', 1700000001000]]);
  });

  it('a fail-open names the shape of the reply, never its text', () => {
    const { outcome } = classifyClaimReply('secret message text', undefined);
    expect(outcome).toEqual({ kind: 'fail-open', reason: 'unexpected claim reply: a string of 19 characters' });
  });

  fcTest.prop([fc.anything()])('nothing but a held: status with a holder is ever a duplicate', (reply) => {
    const positive = Array.isArray(reply) && typeof reply[0] === 'string' && /^held:./.test(reply[0]);
    expect(kind(reply) === 'duplicate').toBe(positive);
  });

  fcTest.prop([fc.anything()])('only claimed or mine is ever a claim', (reply) => {
    const claimed = Array.isArray(reply) && (reply[0] === 'claimed' || reply[0] === 'mine');
    expect(kind(reply) === 'claimed').toBe(claimed);
  });
});
