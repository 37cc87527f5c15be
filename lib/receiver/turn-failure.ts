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
 */
export interface TurnFailure {
  kind: 'transient' | 'permanent';
  ambiguous: boolean;
  /**
   * This run does not count against the turn's attempts, only its retry
   * window: Slack's window was still closed (waiting is never a failure,
   * issue 17), or the turn never ran (handed back at shutdown).
   */
  free?: boolean;
  /** Short, safe for a log and a dead letter: no message text, no token. */
  reason: string;
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

export function classifyTurnFailure(error: unknown): TurnFailure {
  const e = field(error);
  // Bolt wraps several listeners' errors; the first one decides.
  if (e.code === 'slack_bolt_multiple_listener_error' && Array.isArray((e as { originals?: unknown[] }).originals)) {
    return classifyTurnFailure((e as { originals: unknown[] }).originals[0]);
  }
  // Bolt wraps an error without a code (a listener's TypeError, say) in an UnknownError.
  if (e.code === 'slack_bolt_unknown_error' && e.original !== undefined) return classifyTurnFailure(e.original);
  if (e.code === 'slack_webapi_platform_error') {
    const code = String(e.data?.error ?? 'unknown');
    const throttled = code === 'ratelimited' || code === 'rate_limited';
    return { kind: TRANSIENT_SLACK.has(code) ? 'transient' : 'permanent', ambiguous: false, reason: `slack: ${code}`, ...(throttled ? { free: true } : {}) };
  }
  if (e.code === 'slack_webapi_http_error') {
    const status = Number(e.statusCode);
    const transient = status >= 500 || status === 408 || status === 429;
    return { kind: transient ? 'transient' : 'permanent', ambiguous: transient && status !== 429, reason: `http ${status}`, ...(status === 429 ? { free: true } : {}) };
  }
  if (e.code === 'slack_webapi_rate_limited_error') return { kind: 'transient', ambiguous: false, reason: 'rate limited', free: true };
  if (e.code === 'slack_webapi_request_error') return classifyRequestError(e.original);
  if (e.code === 'autohub_rate_limit_exhausted') return { kind: 'transient', ambiguous: false, reason: 'rate-limit budget spent', free: true };
  if (e.code === 'autohub_store_unavailable') return { kind: 'transient', ambiguous: false, reason: 'store unavailable before posting' };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return { kind: 'transient', ambiguous: true, reason: 'timeout' };
  const name = typeof e.name === 'string' ? e.name : typeof error;
  return { kind: 'permanent', ambiguous: false, reason: `listener: ${name}: ${String(e.message ?? '').slice(0, 80)}` };
}

function classifyRequestError(original: unknown): TurnFailure {
  const o = field(original);
  if (o.code === 'autohub_rate_limit_exhausted') return { kind: 'transient', ambiguous: false, reason: 'rate-limit budget spent', free: true };
  if (o.name === 'TimeoutError' || o.name === 'AbortError') return { kind: 'transient', ambiguous: true, reason: 'timeout' };
  const code = systemCode(original) ?? 'connection error';
  return { kind: 'transient', ambiguous: !NEVER_SENT.has(code), reason: `connection: ${code}` };
}
