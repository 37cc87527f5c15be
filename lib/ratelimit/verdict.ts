/**
 * Judging one refusal a client logged: was Slack's window honoured? Pure.
 */
import { classifyResponse, isThrottled, type ResponseState } from './classify.js';
import { retryAfterSeconds, type RetryAfterSource } from './retry-after.js';

/** Waiting under this share of the window is retrying early. */
export const EARLY_RATIO = 0.95;
/** Waiting over this multiple of the window is a fixed sleep dressed as backoff. */
export const BLIND_RATIO = 4;

export type Verdict = 'honoured' | 'retried-early' | 'slept-blind' | 'no-wait-recorded' | 'not-a-refusal';

/** One line of the refusal log (see RefusalRecord), read loosely: a log is input. */
export interface LoggedRefusal {
  method?: unknown;
  status?: unknown;
  body?: unknown;
  headers?: unknown;
  waited?: unknown;
}

export interface Judgement {
  verdict: Verdict;
  state: ResponseState;
  /** The window the record's headers asked for, and where that number came from. */
  seconds: number;
  source: RetryAfterSource;
  detail: string;
}

export const REPAIRS: Record<Exclude<Verdict, 'honoured' | 'not-a-refusal'>, string> = {
  'retried-early': 'sleep for the header before the next attempt, not for a number the backoff invented',
  'slept-blind': 'read Retry-After instead of a constant; the constant is why the job looks slow while idle',
  'no-wait-recorded': 'guard the header read: a missing Retry-After must give a documented default, never an exception in the error path',
};

export function replayVerdict(record: LoggedRefusal | null | undefined): Judgement {
  const doc = record ?? {};
  const method = String(doc.method ?? '?');
  const { state, detail } = classifyResponse(doc.status, doc.body);
  const headers = typeof doc.headers === 'object' ? (doc.headers as Record<string, unknown> | null) : null;
  const window = retryAfterSeconds(headers);
  const base = { state, seconds: window.seconds, source: window.source };
  if (!isThrottled(state)) {
    return { ...base, verdict: 'not-a-refusal', detail: `${method}: ${detail} Nothing about backoff is decided here.` };
  }
  if (doc.waited === null || doc.waited === undefined) {
    return {
      ...base,
      verdict: 'no-wait-recorded',
      detail: `${method} was throttled and no wait was logged: it retried without pausing, or threw in the error path before retrying. ${window.detail}`,
    };
  }
  const waited = typeof doc.waited === 'number' || typeof doc.waited === 'string' ? Number(doc.waited) : NaN;
  if (!Number.isFinite(waited) || (typeof doc.waited === 'string' && doc.waited.trim() === '')) {
    return {
      ...base,
      verdict: 'no-wait-recorded',
      detail: `${method} logged a wait of ${JSON.stringify(doc.waited)}, which is not a duration.`,
    };
  }
  const against = `${method} waited ${waited.toFixed(1)}s against a window of ${window.seconds}s.`;
  if (waited < window.seconds * EARLY_RATIO) {
    return {
      ...base,
      verdict: 'retried-early',
      detail: `${against} The retry lands in a window that has not reopened, spending a request and lengthening the outage. ${window.detail}`,
    };
  }
  if (waited > window.seconds * BLIND_RATIO) {
    return {
      ...base,
      verdict: 'slept-blind',
      detail: `${against} That is a fixed sleep, not an answer, and it turns a short throttle into a long one. ${window.detail}`,
    };
  }
  return { ...base, verdict: 'honoured', detail: `${against} ${window.detail}` };
}
