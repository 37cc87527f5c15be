/**
 * Reading Slack's Retry-After defensively. Pure.
 *
 * Always a usable number of seconds, and always the word for where it came
 * from: "Slack asked for 3 seconds" and "nothing came back so we picked 30"
 * are a schedule and a guess, and the audit must be able to tell them apart.
 */

/** What to wait when Slack gave no usable answer: recorded as a default, never as Slack's word. */
export const DEFAULT_WAIT_SECONDS = 30;
/** A window past this is a parsing accident more likely than an instruction: clamped and flagged. */
export const CEILING_SECONDS = 600;
/** A zero window would spend the next request inside the window that just closed. */
export const ZERO_WAIT_SECONDS = 1;

export type RetryAfterSource = 'header' | 'absent' | 'empty' | 'unparseable' | 'negative' | 'zero' | 'clamped';

export interface RetryAfter {
  seconds: number;
  source: RetryAfterSource;
  detail: string;
}

export type HeaderBag = Headers | Readonly<Record<string, unknown>> | null | undefined;

/** The raw Retry-After value, the name matched regardless of case and surrounding spaces. */
export function rawRetryAfter(headers: HeaderBag): unknown {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).forEach === 'function') {
    return (headers as Headers).get('retry-after') ?? undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.trim().toLowerCase() === 'retry-after') return value;
  }
  return undefined;
}

export function retryAfterSeconds(headers: HeaderBag): RetryAfter {
  const raw = rawRetryAfter(headers);
  if (raw === undefined || raw === null) {
    return {
      seconds: DEFAULT_WAIT_SECONDS,
      source: 'absent',
      detail: `no Retry-After came back; waiting the documented default of ${DEFAULT_WAIT_SECONDS}s, which is not Slack's word.`,
    };
  }
  const text = String(Array.isArray(raw) ? raw[0] : raw).trim();
  if (text === '') {
    return {
      seconds: DEFAULT_WAIT_SECONDS,
      source: 'empty',
      detail: `Retry-After was present but empty, which says no more than an absent one; default ${DEFAULT_WAIT_SECONDS}s.`,
    };
  }
  // Number('') is 0, so emptiness is checked first; Number('12abc') is NaN.
  const seconds = Number(text);
  if (!Number.isFinite(seconds)) {
    return {
      seconds: DEFAULT_WAIT_SECONDS,
      source: 'unparseable',
      detail: `Retry-After was ${JSON.stringify(text.slice(0, 60))}, not a number of seconds (an HTTP date is legal HTTP but not what Slack sends); default ${DEFAULT_WAIT_SECONDS}s.`,
    };
  }
  if (seconds < 0) {
    return {
      seconds: DEFAULT_WAIT_SECONDS,
      source: 'negative',
      detail: `Retry-After was negative (${text}), read as no answer rather than leave to retry at once; default ${DEFAULT_WAIT_SECONDS}s.`,
    };
  }
  if (seconds === 0) {
    return {
      seconds: ZERO_WAIT_SECONDS,
      source: 'zero',
      detail: `Retry-After was zero; retrying at once would land in the window that just closed, so ${ZERO_WAIT_SECONDS}s.`,
    };
  }
  if (seconds > CEILING_SECONDS) {
    return {
      seconds: CEILING_SECONDS,
      source: 'clamped',
      detail: `Retry-After was ${Math.round(seconds)}s, past the ${CEILING_SECONDS}s ceiling; clamped, and the raw response is worth a look.`,
    };
  }
  return { seconds, source: 'header', detail: `Slack asked for ${seconds}s and that is the whole schedule.` };
}
