/**
 * A turn that throws what a model SDK throws is retried when
 * the fault passes (overload, rate limit, 5xx, a reset connection) and
 * dead-lettered only for a bug; a retry-after on the error is the least wait.
 * Anthropic's errors are the SDK's own classes; the connection error is a real
 * one, from a fetch to a loopback server that resets the socket.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { RetryableError, StoreUnavailableError } from '../../lib/errors/index.js';
import { classifyTurnFailure, clipAtWord, retryAfterOf, type TurnFailure } from '../../lib/errors/turn-failure.js';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const now = () => NOW;
const body = (type: string) => ({ type: 'error', error: { type, message: 'something' } });
const anthropic = (status: number, type: string, headers: Record<string, string> = {}) =>
  Anthropic.APIError.generate(status, body(type), undefined, new Headers(headers));

/** A real undici `TypeError: fetch failed` with ECONNRESET beneath, and the SDK's APIConnectionError around one. */
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function fetchFailed(): Promise<unknown> {
  return fetch(url).then(
    () => expect.unreachable('the loopback server resets every connection'),
    (error: unknown) => error,
  );
}

async function sdkConnectionError(): Promise<unknown> {
  const client = new Anthropic({ apiKey: 'sk-test', baseURL: url, maxRetries: 0 });
  return client.messages.create({ model: 'claude-test', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }).then(
    () => expect.unreachable('the loopback server resets every connection'),
    (error: unknown) => error,
  );
}

describe('errors as model SDKs throw them', () => {
  it("the SDK's connection error is a real APIConnectionError over undici's fetch failed over ECONNRESET", async () => {
    const error = (await sdkConnectionError()) as Error & { cause?: Error & { cause?: { code?: string } } };
    expect(error).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(error.cause?.message).toBe('fetch failed');
    expect(error.cause?.cause?.code).toBe('ECONNRESET');
  });

  const rows: Array<[string, () => unknown | Promise<unknown>, Partial<TurnFailure>]> = [
    [
      'an overload (529, OverloadedError) with retry-after 7 is retried after at least 7 s',
      () => anthropic(529, 'overloaded_error', { 'retry-after': '7' }),
      { kind: 'transient', retryAfterMs: 7000, reason: 'http 529 (OverloadedError)' },
    ],
    ['a 500 (InternalServerError) is retried', () => anthropic(500, 'api_error'), { kind: 'transient', reason: 'http 500 (InternalServerError)' }],
    ['a 503 (ServiceUnavailableError) is retried', () => anthropic(503, 'api_error'), { kind: 'transient' }],
    [
      'a 429 (RateLimitError) with retry-after-ms is retried after that many ms',
      () => anthropic(429, 'rate_limit_error', { 'retry-after-ms': '1500', 'retry-after': '9' }),
      { kind: 'transient', retryAfterMs: 1500 },
    ],
    ['a 408 is retried', () => anthropic(408, 'timeout_error'), { kind: 'transient' }],
    ['a 409 is retried', () => anthropic(409, 'conflict_error'), { kind: 'transient' }],
    [
      'an overload streamed after the 200 (SSE error event: no status) is retried',
      () => new Anthropic.APIError(undefined, body('overloaded_error'), undefined, new Headers(), 'overloaded_error'),
      { kind: 'transient', reason: 'model: overloaded_error' },
    ],
    ['a 400 (BadRequestError) is a dead letter: waiting will not change it', () => anthropic(400, 'invalid_request_error'), { kind: 'permanent' }],
    ['a 401 (AuthenticationError: a wrong key) is a dead letter', () => anthropic(401, 'authentication_error'), { kind: 'permanent' }],
    [
      "the SDK's APIConnectionError (fetch failed, ECONNRESET beneath) is retried",
      sdkConnectionError,
      { kind: 'transient', ambiguous: false, reason: 'connection: ECONNRESET' },
    ],
    ["the SDK's timeout (APIConnectionTimeoutError, no cause) is retried", () => new Anthropic.APIConnectionTimeoutError(), { kind: 'transient' }],
    ["the SDK's abort (APIUserAbortError: the turn's signal fired) is not a dead letter", () => new Anthropic.APIUserAbortError(), { kind: 'transient' }],
    [
      "undici's own TypeError: fetch failed (ECONNRESET beneath) is retried, not taken for a bug",
      fetchFailed,
      { kind: 'transient', reason: 'connection: ECONNRESET' },
    ],
    [
      'an error wrapping a 529 as its cause is retried',
      () => new Error('model call failed', { cause: anthropic(529, 'overloaded_error') }),
      { kind: 'transient' },
    ],
    [
      'a network code deep in the chain (UND_ERR_SOCKET) is retried',
      () => new Error('a', { cause: new Error('b', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }) }),
      { kind: 'transient', reason: 'connection: UND_ERR_SOCKET' },
    ],
    [
      'ETIMEDOUT and EPIPE are retried',
      () => new Error('x', { cause: new AggregateError([Object.assign(new Error('t'), { code: 'ETIMEDOUT' })]) }),
      { kind: 'transient', reason: 'connection: ETIMEDOUT' },
    ],
    [
      'an undici argument error (UND_ERR_INVALID_ARG) is a bug, a dead letter',
      () => Object.assign(new TypeError('invalid'), { code: 'UND_ERR_INVALID_ARG' }),
      { kind: 'permanent' },
    ],
    [
      'RetryableError is retried, after its retryAfterMs',
      () => new RetryableError('index rebuilding', { retryAfterMs: 30_000 }),
      { kind: 'transient', retryAfterMs: 30_000, reason: 'retryable: index rebuilding' },
    ],
    ['RetryableError without a wait is retried with the backoff alone', () => new RetryableError('try later'), { kind: 'transient', retryAfterMs: undefined }],
    [
      'a plain status object (statusCode 502, plain headers, retry-after as an HTTP date) waits until that date',
      () => Object.assign(new Error('bad gateway'), { statusCode: 502, headers: { 'Retry-After': new Date(NOW + 12_000).toUTCString() } }),
      { kind: 'transient', retryAfterMs: 12_000 },
    ],
    [
      'a bug (TypeError) is a dead letter at once',
      () => new TypeError("Cannot read properties of undefined (reading 'text')"),
      { kind: 'permanent', reason: "listener: TypeError: Cannot read properties of undefined (reading 'text')" },
    ],
    ['a thrown string is a dead letter', () => 'oops', { kind: 'permanent' }],
    // Today's Slack classifications, unchanged.
    [
      'Slack channel_not_found is a dead letter',
      () => ({ code: 'slack_webapi_platform_error', data: { error: 'channel_not_found' } }),
      { kind: 'permanent', ambiguous: false, reason: 'slack: channel_not_found' },
    ],
    [
      'Slack ratelimited is retried for free',
      () => ({ code: 'slack_webapi_platform_error', data: { error: 'ratelimited' } }),
      { kind: 'transient', free: true, reason: 'slack: ratelimited' },
    ],
    [
      'Slack internal_error is retried',
      () => ({ code: 'slack_webapi_platform_error', data: { error: 'internal_error' } }),
      { kind: 'transient', ambiguous: false },
    ],
    [
      'Slack HTTP 500 is retried, ambiguous',
      () => ({ code: 'slack_webapi_http_error', statusCode: 500 }),
      { kind: 'transient', ambiguous: true, reason: 'http 500' },
    ],
    ['Slack HTTP 404 is a dead letter', () => ({ code: 'slack_webapi_http_error', statusCode: 404 }), { kind: 'permanent', reason: 'http 404' }],
    [
      'a Slack request reset mid-way is retried, ambiguous',
      () => ({ code: 'slack_webapi_request_error', original: { code: 'ECONNRESET' } }),
      { kind: 'transient', ambiguous: true, reason: 'connection: ECONNRESET' },
    ],
    [
      'a Slack request never sent (ECONNREFUSED) is retried, not ambiguous',
      () => ({ code: 'slack_webapi_request_error', original: { code: 'ECONNREFUSED' } }),
      { kind: 'transient', ambiguous: false },
    ],
    ['the store down before posting is retried', () => new StoreUnavailableError('commit'), { kind: 'transient', reason: 'store unavailable before posting' }],
    ['a TimeoutError is retried, ambiguous', () => new DOMException('timed out', 'TimeoutError'), { kind: 'transient', ambiguous: true, reason: 'timeout' }],
    [
      "Bolt's UnknownError around a 529 is retried",
      () => ({ code: 'slack_bolt_unknown_error', original: anthropic(529, 'overloaded_error', { 'retry-after': '3' }) }),
      { kind: 'transient', retryAfterMs: 3000 },
    ],
  ];

  it.each(rows)('%s', async (_title, make, expected) => {
    const failure = classifyTurnFailure(await make(), { now });
    expect(failure).toMatchObject(Object.fromEntries(Object.entries(expected).filter(([, v]) => v !== undefined)));
    if ('retryAfterMs' in expected && expected.retryAfterMs === undefined) expect(failure.retryAfterMs).toBeUndefined();
    if (failure.kind === 'permanent') expect(failure.retryAfterMs).toBeUndefined();
  });
});

describe('retryAfterOf: the least wait a failing service asked for', () => {
  it.each([
    ['retry-after in seconds (Headers)', { headers: new Headers({ 'retry-after': '7' }) }, 7000],
    ['retry-after with fractions', { headers: { 'retry-after': '0.25' } }, 250],
    ['retry-after-ms wins over retry-after', { headers: new Headers({ 'retry-after': '9', 'retry-after-ms': '120' }) }, 120],
    ['an HTTP date, from now', { headers: { 'retry-after': new Date(NOW + 5000).toUTCString() } }, 5000],
    ['an HTTP date in the past is no wait', { headers: { 'retry-after': new Date(NOW - 5000).toUTCString() } }, 0],
    ['a plain object, any case', { headers: { 'RETRY-AFTER': '2' } }, 2000],
    ['on response.headers (axios-shaped)', { response: { headers: { 'retry-after': '4' } } }, 4000],
    ['garbage is no wait', { headers: { 'retry-after': 'soon' } }, undefined],
    ['a negative number is no wait', { headers: { 'retry-after': '-3' } }, undefined],
    ['no headers', {}, undefined],
    ['an hour at most', { headers: { 'retry-after': '86400' } }, 3_600_000],
  ])('%s', (_title, error, expected) => {
    expect(retryAfterOf(error, now)).toBe(expected);
  });
});

describe('a dead letter keeps a reason cut at a word, not mid-word', () => {
  it.each([
    ['short as it is', 'short as it is'],
    [`${'word '.repeat(30)}end`, `${'word '.repeat(16).trim()}...`],
    ['first line\nsecond line with the stack', 'first line'],
    ['x'.repeat(120), `${'x'.repeat(80)}...`],
  ])('%j -> %j', (message, reason) => {
    expect(clipAtWord(message)).toBe(reason);
  });

  it("a bug's reason ends on a whole word", () => {
    const failure = classifyTurnFailure(new TypeError('Cannot read properties of undefined (reading something that goes on and on past the limit)'), { now });
    expect(failure.reason).toBe('listener: TypeError: Cannot read properties of undefined (reading something that goes on and on past...');
  });
});
