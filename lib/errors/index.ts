/**
 * Every error autohub throws on purpose, with a stable string `code` so that a
 * log line or a test can name it without matching message text.
 *
 * Expected outcomes (a duplicate claim, a refused request) are values, not
 * errors; these are for broken setup and for budgets that ran out.
 */
export const ErrorCode = {
  ConfigInvalid: 'autohub_config_invalid',
  RateLimitExhausted: 'autohub_rate_limit_exhausted',
  RequestInvalid: 'autohub_request_invalid',
  UsageInvalid: 'autohub_usage_invalid',
  StoreUnavailable: 'autohub_store_unavailable',
  LeaseLost: 'autohub_lease_lost',
  Retryable: 'autohub_retryable',
  NonRetryable: 'autohub_non_retryable',
  ReplyInvalid: 'autohub_reply_invalid',
  TurnDeadline: 'autohub_turn_deadline',
  TurnInterrupted: 'autohub_turn_interrupted',
  StepLimit: 'autohub_step_limit',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface CodedError extends Error {
  code: ErrorCode;
}

/**
 * What every error here shares: a code, a name a stack trace shows (written
 * out, so a minified bundle keeps it), a message, and the cause it was made from.
 */
abstract class AutohubError extends Error implements CodedError {
  abstract readonly code: ErrorCode;
  constructor(name: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = name;
  }
}

/** A setting is missing or malformed; the message is the one line an operator sees. */
export class ConfigError extends AutohubError {
  readonly code = ErrorCode.ConfigInvalid;
  constructor(
    readonly variable: string,
    readonly expected: string,
    received?: string,
  ) {
    super(
      'ConfigError',
      received === undefined
        ? `${variable} is not set: expected ${expected}`
        : `${variable} is invalid: expected ${expected}, received ${JSON.stringify(received)}`,
    );
  }
}

/**
 * Several settings that cannot be used, found in one start: each named on a
 * line of its own, so a person fixes them all at once, not one per restart.
 * A ConfigError itself (the first of them), so every caller that prints one
 * prints these.
 */
export class ConfigErrors extends ConfigError {
  constructor(readonly errors: readonly ConfigError[]) {
    const first = errors[0]!;
    super(first.variable, first.expected);
    this.message = `${errors.length} settings cannot be used:\n${errors.map((e) => `  ${e.message}`).join('\n')}`;
    this.name = 'ConfigErrors';
  }
}

/** The rate-limit client ran out of attempts or time while Slack kept refusing. */
export class RateLimitExhaustedError extends AutohubError {
  readonly code = ErrorCode.RateLimitExhausted;
  constructor(
    readonly method: string,
    /** The last window Slack asked for, in seconds. */
    readonly lastWindowSeconds: number,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super('RateLimitExhaustedError', `${method} was still rate limited after ${attempts} attempt(s); last window ${lastWindowSeconds}s`, options);
  }
}

/** A request could not be understood (bad JSON, unknown content type, missing id). */
export class RequestInvalidError extends AutohubError {
  readonly code = ErrorCode.RequestInvalid;
  constructor(
    message: string,
    /** The HTTP status the request is refused with. */
    readonly status: 400 | 415 = 400,
  ) {
    super('RequestInvalidError', message);
  }
}

/** A command-line tool was called with words it cannot use. */
export class UsageError extends AutohubError {
  readonly code = ErrorCode.UsageInvalid;
  constructor(message: string, options?: { cause?: unknown }) {
    super('UsageError', message, options);
  }
}

export function isCodedError(value: unknown): value is CodedError {
  return value instanceof Error && typeof (value as { code?: unknown }).code === 'string';
}

/** The shared store could not answer at a point where the turn needs it (the commit before posting). */
export class StoreUnavailableError extends AutohubError {
  readonly code = ErrorCode.StoreUnavailable;
  constructor(readonly step: string) {
    super('StoreUnavailableError', `the shared store did not answer at the ${step}`);
  }
}

/**
 * This copy no longer owns the turn (its lease was taken over or lapsed): a
 * write was kept from leaving. Not a failure of the turn: the copy stands down
 * and the owner answers.
 */
export class LeaseLostError extends AutohubError {
  readonly code = ErrorCode.LeaseLost;
  constructor(readonly at: string) {
    super('LeaseLostError', `this copy no longer owns the turn (${at})`);
  }
}

/** Whether `error`, or what a WebClient wrapped in it (`original`) or its cause chain, is a LeaseLostError. */
export function isLeaseLost(error: unknown, depth = 0): boolean {
  if (error instanceof LeaseLostError) return true;
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const e = error as { code?: unknown; original?: unknown; cause?: unknown; originals?: unknown };
  if (e.code === ErrorCode.LeaseLost) return true;
  if (Array.isArray(e.originals)) return e.originals.some((o) => isLeaseLost(o, depth + 1));
  return isLeaseLost(e.original, depth + 1) || isLeaseLost(e.cause, depth + 1);
}

/**
 * Thrown by a turn to say "try me again later": the turn is retried with
 * backoff (AUTOHUB_TURN_RETRY_DELAY_MS, x4 each time) within its retry window,
 * never dead-lettered for it until its attempts are spent. `retryAfterMs` is
 * the least wait before the next run (a model API's own `retry-after`, say).
 *
 * @example throw new RetryableError('the search index is rebuilding', { retryAfterMs: 30_000 })
 */
export class RetryableError extends AutohubError {
  readonly code = ErrorCode.Retryable;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options?: { retryAfterMs?: number; cause?: unknown }) {
    super('RetryableError', message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/**
 * Thrown by a turn to say "try me again in N seconds": a RetryableError whose
 * least wait is given in seconds (a quota that refills at a known time, a
 * model API's `retry-after`). The retry waits the longer of this and its
 * backoff, within the turn's retry window.
 *
 * @example throw new RetryAfterError('the quota refills at the top of the minute', 30)
 */
export class RetryAfterError extends RetryableError {
  /** The least wait before the next run, in seconds, as given. */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, options?: { cause?: unknown }) {
    if (!Number.isFinite(retryAfterSeconds) || retryAfterSeconds < 0) {
      throw new RangeError(`RetryAfterError: retryAfterSeconds must be a number of seconds, 0 or more; received ${String(retryAfterSeconds)}`);
    }
    super(message, { retryAfterMs: Math.ceil(retryAfterSeconds * 1000), ...(options?.cause === undefined ? {} : { cause: options.cause }) });
    this.name = 'RetryAfterError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Thrown by a turn to say "give up": another run would fail the same way
 * (a request the bot cannot answer, a setting the bot lacks). The turn is a
 * dead letter at once, with this message as its reason, whatever it wraps:
 * a 529 or a reset connection in its `cause` is not retried.
 *
 * @example throw new NonRetryableError('ANTHROPIC_API_KEY is not set')
 */
export class NonRetryableError extends AutohubError {
  readonly code = ErrorCode.NonRetryable;
  constructor(message: string, options?: { cause?: unknown }) {
    super('NonRetryableError', message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/**
 * The bot's `takeTurn` returned what is not a reply (a number, an array, an
 * object without `text`): the message says what came back and what may. A
 * bug of the bot's: a dead letter at once, the reason naming it as the bot's.
 */
export class ReplyInvalidError extends AutohubError {
  readonly code = ErrorCode.ReplyInvalid;
  constructor(message: string) {
    super('ReplyInvalidError', message);
  }
}

/**
 * A turn's deadline passed (its retry window is over, or the copy is stopping
 * past its drain): `ctx.signal` aborts with this as its reason, so a bot can
 * read `signal.reason.code`. A turn still running a short grace later is
 * failed (dead-lettered, the owner told) whether or not it listened.
 */
export class TurnDeadlineError extends AutohubError {
  readonly code = ErrorCode.TurnDeadline;
  constructor(readonly why: string) {
    super('TurnDeadlineError', `the turn's deadline passed: ${why}`);
  }
}

/**
 * The person wrote again in the thread while this turn ran, and the bot
 * exports `concurrency = 'interrupt'`: `ctx.signal` aborts with this as its
 * reason (`signal.reason.code === 'autohub_turn_interrupted'`). What the turn
 * wrote so far is closed as `_(interrupted)_` and kept as its answer; the
 * newer message runs next, knowing it (ctx.history()). Not a failure: never
 * retried, never a dead letter.
 */
export class TurnInterruptedError extends Error implements CodedError {
  readonly code = ErrorCode.TurnInterrupted;
  constructor(readonly why = 'the person wrote again in the thread') {
    super(`the turn was interrupted: ${why}`);
    this.name = 'TurnInterruptedError';
  }
}

/** Whether `reason` (a signal's) is an interrupt: the turn's answer so far is kept, closed as interrupted. */
export function isTurnInterrupted(reason: unknown): reason is TurnInterruptedError {
  return reason instanceof TurnInterruptedError || (reason as { code?: unknown } | undefined)?.code === ErrorCode.TurnInterrupted;
}

/**
 * A turn ran more `ctx.step`s than one turn may keep: each costs a store
 * command, so the bound keeps a loop from spending the store's allowance. Not
 * worth a retry (the next run would do the same): the turn is dead-lettered.
 */
export class StepLimitError extends AutohubError {
  readonly code = ErrorCode.StepLimit;
  constructor(
    readonly step: string,
    readonly limit: number,
  ) {
    super(
      'StepLimitError',
      `ctx.step("${step}") is step ${limit + 1} of this turn; a turn keeps at most ${limit} (each costs a store command): do more inside one step, e.g. one step for a batch of searches`,
    );
  }
}

export { classifyTurnFailure, rootError } from './turn-failure.js';
export type { TurnFailure } from './turn-failure.js';
