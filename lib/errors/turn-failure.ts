/**
 * Why a turn failed, and what follows. Pure.
 *
 *   transient: another run may succeed (a connection error, a timeout, HTTP
 *     5xx, a rate-limit budget spent, Slack's own `internal_error`, ...);
 *     the lease is handed back for a retry with backoff.
 *   permanent: waiting will not change it (`channel_not_found`,
 *     `not_in_channel`, a revoked token, a listener bug); dead-lettered at once.
 *
 * `ambiguous`: the request may have reached Slack and posted (a reset, a
 * timeout, a 5xx), so the next run reads the thread before posting again.
 * A clear `ok: false` refusal and a connection that was never made are not.
 *
 * Errors a turn throws itself, as model SDKs throw them, are read after
 * Slack's own, down the error's `cause` chain, so that a model API's
 * ordinary failure (an overload, a reset connection) is retried, not
 * dead-lettered after one run:
 *   - autohub's `RetryableError` and `RetryAfterError` (autohub/bot): transient;
 *     its `NonRetryableError`: permanent, whatever its cause says;
 *   - an HTTP status (`status` or `statusCode`) of 408, 409, 429 or 5xx (529,
 *     Anthropic's overload, included): transient; any other status: permanent;
 *   - a model API's error type streamed after the 200 (Anthropic sends
 *     `overloaded_error` as an SSE `error` event mid-stream, so the SDK's
 *     error has no status): transient for the passing kinds;
 *   - a network code (`ECONNRESET`, `ETIMEDOUT`, `UND_ERR_SOCKET`, ...), as
 *     undici's `TypeError: fetch failed` carries it: transient;
 *   - the Stainless SDKs' (Anthropic's, OpenAI's) connection errors, whose
 *     timeout variant keeps no cause: transient.
 * A `retry-after-ms` or `retry-after` header on the error (`headers` as a
 * `Headers` or a plain object: ms; seconds or an HTTP date) is the least wait
 * before the next run: `retryAfterMs`. None of these posted anything to
 * Slack, so none is ambiguous. Everything else (a TypeError: a bug) is permanent.
 */
export interface TurnFailure {
  kind: 'transient' | 'permanent';
  ambiguous: boolean;
  /**
   * This run does not count against the turn's attempts, only its retry
   * window: Slack's window was still closed (waiting is never a failure: on
   * a busy machine the waits would spend every attempt, and the turn would be
   * lost), or the turn never ran (handed back at shutdown).
   */
  free?: boolean;
  /** Short, safe for a log and a dead letter: no message text, no token. */
  reason: string;
  /**
   * The least wait before the next run, as the failing service asked for it
   * (a `retry-after` header, `RetryableError.retryAfterMs`): the retry waits
   * the longer of this and its backoff. Only on a transient failure.
   */
  retryAfterMs?: number;
}

export interface ClassifyOptions {
  /** For a `retry-after` given as an HTTP date. @default Date.now */
  now?: () => number;
}

/** Slack error codes that are worth another run. */
const TRANSIENT_SLACK = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited', 'rate_limited']);
/** Connection errors that mean the request never left. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

interface Coded {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  data?: { error?: unknown };
  statusCode?: unknown;
  original?: unknown;
  cause?: unknown;
}

function field(value: unknown): Coded {
  return typeof value === 'object' && value !== null ? (value as Coded) : {};
}

/** The system error code somewhere down a cause chain (ECONNRESET, UND_ERR_SOCKET, ...). */
function systemCode(error: unknown, depth = 0): string | undefined {
  const e = field(error);
  if (typeof e.code === 'string' && /^[A-Z_]+$/.test(e.code)) return e.code;
  return depth < 4 && e.cause !== undefined ? systemCode(e.cause, depth + 1) : undefined;
}

export function classifyTurnFailure(error: unknown, options: ClassifyOptions = {}): TurnFailure {
  const e = field(error);
  // Bolt wraps several listeners' errors; the first one decides.
  if (e.code === 'slack_bolt_multiple_listener_error' && Array.isArray((e as { originals?: unknown[] }).originals)) {
    return classifyTurnFailure((e as { originals: unknown[] }).originals[0], options);
  }
  // Bolt wraps an error without a code (a listener's TypeError, say) in an UnknownError.
  if (e.code === 'slack_bolt_unknown_error' && e.original !== undefined) return classifyTurnFailure(e.original, options);
  if (e.code === 'slack_webapi_platform_error') {
    const code = String(e.data?.error ?? 'unknown');
    const throttled = code === 'ratelimited' || code === 'rate_limited';
    return { kind: TRANSIENT_SLACK.has(code) ? 'transient' : 'permanent', ambiguous: false, reason: `slack: ${code}`, ...(throttled ? { free: true } : {}) };
  }
  if (e.code === 'slack_webapi_http_error') {
    const status = Number(e.statusCode);
    const transient = status >= 500 || status === 408 || status === 429;
    return {
      kind: transient ? 'transient' : 'permanent',
      ambiguous: transient && status !== 429,
      reason: `http ${status}`,
      ...(status === 429 ? { free: true } : {}),
    };
  }
  if (e.code === 'slack_webapi_rate_limited_error') return { kind: 'transient', ambiguous: false, reason: 'rate limited', free: true };
  if (e.code === 'slack_webapi_request_error') return classifyRequestError(e.original);
  if (e.code === 'autohub_rate_limit_exhausted') return { kind: 'transient', ambiguous: false, reason: 'rate-limit budget spent', free: true };
  // Past its deadline the turn is over, whatever it threw in its grace: another run would only hang again.
  if (e.code === 'autohub_turn_deadline') return { kind: 'permanent', ambiguous: true, reason: `deadline: ${String(e.message ?? '').slice(0, 80)}` };
  // The bot returned what is not a reply: its own bug, said as its own (the message names what came back).
  if (e.code === 'autohub_reply_invalid') return { kind: 'permanent', ambiguous: false, reason: `bot: ${clipAtWord(String(e.message ?? ''), 120)}` };
  if (e.code === 'autohub_store_unavailable') return { kind: 'transient', ambiguous: false, reason: 'store unavailable before posting' };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return { kind: 'transient', ambiguous: true, reason: 'timeout' };
  const thrown = classifyThrown(error, options.now ?? Date.now);
  if (thrown) return thrown;
  const name = typeof e.name === 'string' ? e.name : typeof error;
  return { kind: 'permanent', ambiguous: false, reason: `listener: ${name}: ${clipAtWord(String(e.message ?? ''))}` };
}

/**
 * An error's message as a dead letter keeps it: its first line, at most about
 * `max` characters, cut at a word (a reason cut mid-word reads as a typo in
 * `npm run deadletter -- list`). Pure.
 */
export function clipAtWord(message: string, max = 80): string {
  const line = message.split('\n')[0]!.trim();
  if (line.length <= max) return line;
  const space = line.lastIndexOf(' ', max);
  // One word longer than the whole allowance (a URL, an id) is cut where it must be.
  return `${(space > max / 2 ? line.slice(0, space) : line.slice(0, max)).replace(/[\s,;:.]+$/, '')}...`;
}

function classifyRequestError(original: unknown): TurnFailure {
  const o = field(original);
  if (o.code === 'autohub_rate_limit_exhausted') return { kind: 'transient', ambiguous: false, reason: 'rate-limit budget spent', free: true };
  if (o.name === 'TimeoutError' || o.name === 'AbortError') return { kind: 'transient', ambiguous: true, reason: 'timeout' };
  const code = systemCode(original) ?? 'connection error';
  return { kind: 'transient', ambiguous: !NEVER_SENT.has(code), reason: `connection: ${code}` };
}

/** HTTP statuses worth another run: a request timeout, a lock conflict, a rate limit, any server error. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Anthropic's error types (`error.type`) that pass: what a 429, 5xx or 529 says, also when streamed after the 200. */
const TRANSIENT_MODEL_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error']);
/** Network codes of a connection that broke or never answered (Node's and undici's). */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENETRESET',
  'ESOCKETTIMEDOUT',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
/** undici's codes that are a caller's mistake, not the network's. */
const UNDICI_BUGS = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_INVALID_RETURN_VALUE', 'UND_ERR_NOT_SUPPORTED']);
/** Connection errors of the Stainless-built SDKs (Anthropic's, OpenAI's): their timeout keeps no cause to read. */
const SDK_CONNECTION = new Set(['APIConnectionError', 'APIConnectionTimeoutError']);
/** A retry-after past this is no help: the retry window (10 minutes by default) ends the turn first. */
const MAX_RETRY_AFTER_MS = 3_600_000;

function isNetworkCode(code: unknown): code is string {
  return typeof code === 'string' && (NETWORK_CODES.has(code) || (code.startsWith('UND_ERR_') && !UNDICI_BUGS.has(code)));
}

/** The error and its causes (and an AggregateError's errors), outermost first, each once. */
function chainOf(error: unknown): object[] {
  const out: object[] = [];
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || out.includes(value) || depth > 5) return;
    out.push(value);
    visit((value as { cause?: unknown }).cause, depth + 1);
    const errors = (value as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors.slice(0, 4)) visit(inner, depth + 1);
  };
  visit(error, 0);
  return out;
}

function statusOf(link: Coded & { status?: unknown }): number | undefined {
  const status = Number(link.status ?? link.statusCode);
  return Number.isInteger(status) && status >= 100 && status <= 599 ? status : undefined;
}

/** Errors a turn threw itself (a model SDK's, its own); undefined when nothing in the chain says. */
function classifyThrown(error: unknown, now: () => number): TurnFailure | undefined {
  for (const link of chainOf(error)) {
    const l = link as Coded & { status?: unknown; type?: unknown; retryAfterMs?: unknown; error?: unknown };
    const name = typeof l.name === 'string' ? l.name : 'Error';
    const wait = retryAfterOf(link, now);
    const after = wait === undefined ? {} : { retryAfterMs: wait };
    // The bot said so: its word decides before anything it wraps (a 529 in its cause).
    if (l.code === 'autohub_non_retryable') return { kind: 'permanent', ambiguous: false, reason: `non-retryable: ${clipAtWord(String(l.message ?? ''))}` };
    if (l.code === 'autohub_retryable') {
      const own = typeof l.retryAfterMs === 'number' && l.retryAfterMs >= 0 ? Math.min(l.retryAfterMs, MAX_RETRY_AFTER_MS) : undefined;
      return {
        kind: 'transient',
        ambiguous: false,
        reason: `retryable: ${clipAtWord(String(l.message ?? ''))}`,
        ...(own === undefined ? after : { retryAfterMs: own }),
      };
    }
    const status = statusOf(l);
    if (status !== undefined) {
      return isTransientStatus(status)
        ? { kind: 'transient', ambiguous: false, reason: `http ${status} (${name})`, ...after }
        : { kind: 'permanent', ambiguous: false, reason: `http ${status} (${name}): ${clipAtWord(String(l.message ?? ''))}` };
    }
    const type = modelErrorType(l);
    if (type !== undefined && TRANSIENT_MODEL_TYPES.has(type)) return { kind: 'transient', ambiguous: false, reason: `model: ${type}`, ...after };
    if (isNetworkCode(l.code)) return { kind: 'transient', ambiguous: false, reason: `connection: ${l.code}` };
    if (name === 'TimeoutError' || name === 'AbortError' || name === 'APIUserAbortError') return { kind: 'transient', ambiguous: false, reason: 'timeout' };
    // The Anthropic SDK's own RetryableError (thrown from its middleware), escaped past its retries.
    if (name === 'RetryableError') return { kind: 'transient', ambiguous: false, reason: 'retryable (sdk)', ...after };
    if (SDK_CONNECTION.has(name)) {
      // Read on down the chain first: a network code beneath names the fault better.
      const deeper = chainOf(l.cause).find((c) => isNetworkCode((c as Coded).code)) as Coded | undefined;
      return { kind: 'transient', ambiguous: false, reason: `connection: ${deeper ? String(deeper.code) : name}` };
    }
  }
  return undefined;
}

/** Anthropic's `error.type` (the SDK's `type`, or the body `{type: 'error', error: {type}}`). */
function modelErrorType(l: { type?: unknown; error?: unknown }): string | undefined {
  if (typeof l.type === 'string' && l.type.endsWith('_error')) return l.type;
  const inner = (l.error as { error?: { type?: unknown } } | undefined)?.error?.type;
  return typeof inner === 'string' ? inner : undefined;
}

/**
 * What the error's `retry-after-ms` (ms) or `retry-after` (seconds, or an
 * HTTP date) header asks for, in ms: on `headers`, or `response.headers`
 * (axios-shaped errors), as a `Headers` or a plain object. Pure given `now`.
 */
export function retryAfterOf(error: object, now: () => number = Date.now): number | undefined {
  const e = error as { headers?: unknown; response?: { headers?: unknown } };
  const headers = e.headers ?? e.response?.headers;
  if (typeof headers !== 'object' || headers === null) return undefined;
  const ms = header(headers, 'retry-after-ms');
  const after = header(headers, 'retry-after');
  let wait: number | undefined;
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) wait = Number(ms);
  else if (after !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(after)) wait = Number(after) * 1000;
  else if (after !== undefined && /[a-z]/i.test(after) && !Number.isNaN(Date.parse(after))) wait = Math.max(0, Date.parse(after) - now());
  return wait === undefined ? undefined : Math.min(Math.ceil(wait), MAX_RETRY_AFTER_MS);
}

function header(headers: object, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    const value = (headers as Headers).get(name);
    return typeof value === 'string' ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const first = Array.isArray(value) ? value[0] : value;
    return typeof first === 'string' || typeof first === 'number' ? String(first) : undefined;
  }
  return undefined;
}

/** Bolt wraps a listener's error (UnknownError, MultipleListenerError): the turn's own, with its stack, for the logs. */
export function rootError(error: unknown): unknown {
  const e = error as { code?: unknown; original?: unknown; originals?: unknown[] } | undefined;
  if (e?.code === 'slack_bolt_unknown_error' && e.original !== undefined) return rootError(e.original);
  if (e?.code === 'slack_bolt_multiple_listener_error' && Array.isArray(e.originals) && e.originals.length > 0) return rootError(e.originals[0]);
  return error;
}
