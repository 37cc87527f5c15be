/**
 * Naming what Slack returned. Pure. An HTTP 429 and an HTTP 200 whose body is
 * `{ok: false, error: "ratelimited"}` are the same event: code that switches
 * on the status alone catches one and treats the other as data.
 */
export type ResponseState = 'throttled-429' | 'throttled-200' | 'ok' | 'refused' | 'unreadable';

export interface Classified {
  state: ResponseState;
  detail: string;
}

export function classifyResponse(status: unknown, body: unknown): Classified {
  const doc = typeof body === 'object' && body !== null ? (body as { ok?: unknown; error?: unknown }) : {};
  const error = String(doc.error ?? '').trim();
  const code = Number.isFinite(Number(status)) ? Number(status) : 0;
  if (code === 429) {
    return { state: 'throttled-429', detail: 'a real HTTP 429, the rarer shape and the only one a generic HTTP client notices.' };
  }
  if (doc.ok === true) return { state: 'ok', detail: 'the call succeeded; nothing is being throttled.' };
  if (error === 'ratelimited') {
    return {
      state: 'throttled-200',
      detail: `HTTP ${code} with ok: false and error "ratelimited": the same event as a 429, on the success path.`,
    };
  }
  // Slack's second throttle code ("posted too many messages"): honoured like the first, Retry-After when present.
  if (error === 'rate_limited') {
    return {
      state: 'throttled-200',
      detail: `HTTP ${code} with ok: false and error "rate_limited" (too many messages posted): a throttle, not a refusal.`,
    };
  }
  if (error) {
    return { state: 'refused', detail: `"${error}" is a refusal, not a rate limit; waiting will not change it.` };
  }
  return {
    state: 'unreadable',
    detail: `HTTP ${code} with neither ok nor error; something between this app and Slack rewrote the answer.`,
  };
}

export function isThrottled(state: ResponseState): boolean {
  return state === 'throttled-429' || state === 'throttled-200';
}
