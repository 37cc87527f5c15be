/**
 * `autohub/bot`, as a bot imports it (the package's name, resolved to lib/bot here as in tsconfig.json's
 * paths): what each error a bot throws makes of its turn, read by the same classifier a copy uses.
 */
import { NonRetryableError, RetryableError, RetryAfterError } from 'autohub/bot';
import { describe, expect, it } from 'vitest';
import * as errors from '../../lib/errors/index.js';
import { classifyTurnFailure } from '../../lib/errors/index.js';

const overloaded = () => Object.assign(new Error('Overloaded'), { status: 529, type: 'overloaded_error' });

describe('autohub/bot', () => {
  it("exports the very classes a copy checks against: a copy of them would make a bot's error a stranger", () => {
    expect(RetryableError).toBe(errors.RetryableError);
    expect(RetryAfterError).toBe(errors.RetryAfterError);
    expect(NonRetryableError).toBe(errors.NonRetryableError);
  });

  it('RetryAfterError is retried, not before its seconds, and is a RetryableError', () => {
    const error = new RetryAfterError('the quota refills in a minute', 60);
    expect(error).toBeInstanceOf(RetryableError);
    expect(error).toMatchObject({ name: 'RetryAfterError', retryAfterSeconds: 60, retryAfterMs: 60_000 });
    expect(classifyTurnFailure(error)).toEqual({
      kind: 'transient',
      ambiguous: false,
      reason: 'retryable: the quota refills in a minute',
      retryAfterMs: 60_000,
    });
  });

  it('RetryAfterError refuses a wait that is not a number of seconds, naming what it got', () => {
    expect(() => new RetryAfterError('x', -1)).toThrow(/retryAfterSeconds must be a number of seconds, 0 or more; received -1/);
    expect(() => new RetryAfterError('x', Number.NaN)).toThrow(/received NaN/);
  });

  it('NonRetryableError is a dead letter at once with its message, even wrapping an overload that alone is retried', () => {
    expect(classifyTurnFailure(overloaded()).kind).toBe('transient');
    const error = new NonRetryableError('the customer has no plan', { cause: overloaded() });
    expect(error.cause).toBeInstanceOf(Error);
    expect(classifyTurnFailure(error)).toEqual({ kind: 'permanent', ambiguous: false, reason: 'non-retryable: the customer has no plan' });
  });

  it('a NonRetryableError deep in a cause chain still gives up: the bot said so, wrapped or not', () => {
    const wrapped = new Error('tool failed', { cause: new NonRetryableError('bad input') });
    expect(classifyTurnFailure(wrapped)).toMatchObject({ kind: 'permanent', reason: 'non-retryable: bad input' });
  });

  it('RetryableError keeps working as before: retried after its retryAfterMs', () => {
    expect(classifyTurnFailure(new RetryableError('index rebuilding', { retryAfterMs: 30_000 }))).toMatchObject({ kind: 'transient', retryAfterMs: 30_000 });
  });
});
