/**
 * A `fetch` for the WebClient (Bolt's `clientOptions.fetch`) that treats
 * Slack's rate-limit answer as the schedule: on an HTTP 429 or an HTTP 200
 * `{ok: false, error: "ratelimited"}` it records the refusal, waits the window
 * Retry-After names, and sends again, within bounded attempts and a time
 * budget per call. While a method's window is closed, its other calls queue
 * for it; other methods go on. The window is shared with the other copy
 * through the store, and falls back to the local one when the store is away.
 *
 * Only refused requests are sent again (Slack did not act on them). A request
 * whose response was lost is not: that could post a message twice.
 */
import { createHash } from 'node:crypto';
import { RateLimitExhaustedError } from '../errors/index.js';
import { ReadAnswer } from './answer.js';
import type { SharedWindows } from '../store/index.js';
import { realSleep, type Clock, type Sleep } from '../time/index.js';
import { classifyResponse, isThrottled } from './classify.js';
import { MethodGate } from './method-gate.js';
import type { RefusalRecord, RefusalSink } from './refusal-log.js';
import { rawRetryAfter, retryAfterSeconds } from './retry-after.js';

export interface RateLimitFetchOptions {
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default Date.now */
  now?: Clock;
  /** @default setTimeout-based */
  sleep?: Sleep;
  /** Attempts per call, the first included. @default 4 */
  maxAttempts?: number;
  /** Time one call may spend waiting for windows, in ms. @default 120000 */
  budgetMs?: number;
  /**
   * Windows shared with the other copies: learnt from the claim replies this
   * copy already receives (no read per call), published on a refusal. Local only when absent.
   */
  shared?: SharedWindows;
  /** Receives every refusal. @default none */
  onRefusal?: RefusalSink;
  instance?: string;
  /** Longest pacing interval after a refusal. @default 2000 */
  maxPaceMs?: number;
  /**
   * Sees every answer Slack gives (refusals included): the method, the HTTP
   * status and the body's `error` code when `ok` is false. Called after the
   * answer is read, off the caller's path; it changes nothing here. @default none
   */
  onAnswer?: (answer: WebApiAnswer) => void;
}

/** One Web API answer, as `onAnswer` sees it: no body, no token. */
export interface WebApiAnswer {
  method: string;
  status: number;
  /** Slack's error code when the body says `ok: false`. */
  error: string | undefined;
}

/** `"ok": false` in a JSON answer's text: only such an answer is parsed here for its error code. */
const NOT_OK = /"ok"\s*:\s*false/;

/** Hand an answer to `onAnswer`, its error code read from the text already read; never throws. */
function observeAnswer(method: string, status: number, text: string | undefined, onAnswer: (answer: WebApiAnswer) => void): void {
  let error: string | undefined;
  if (text !== undefined && NOT_OK.test(text)) {
    try {
      const body = JSON.parse(text) as { ok?: unknown; error?: unknown };
      if (body.ok === false && typeof body.error === 'string') error = body.error;
    } catch {
      /* not JSON after all: no error code */
    }
  }
  try {
    onAnswer({ method, status, error });
  } catch {
    /* an observer's fault is not the call's */
  }
}

/**
 * A Slack answer read once: a JSON answer's text, for the throttle check and
 * the answer hook, and the same text handed to the WebClient as it is (a
 * `ReadAnswer`: no second copy into a new `Response`, no second decode). A
 * transport that read the body already (lib/ratelimit/slack-transport.ts)
 * gives a `ReadAnswer` itself, and its text is looked at where it lies.
 */
async function readAnswer(response: Response): Promise<{ response: Response; text: string | undefined }> {
  if (response instanceof ReadAnswer) return { response, text: response.peek() };
  if (response.status !== 429 && !(response.headers.get('content-type') ?? '').includes('json')) return { response, text: undefined };
  const text = await response.text();
  return { response: new ReadAnswer(response.status, response.statusText, response.headers, response.url, text) as unknown as Response, text };
}

/** The method a Web API URL names: its last path segment (`.../api/chat.postMessage?x` -> `chat.postMessage`). */
export function methodOf(input: RequestInfo | URL): string {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  return path.slice(path.lastIndexOf('/') + 1) || 'unknown';
}

/** The request's authorization header: read straight from the plain object the WebClient sends, else through Headers. */
function authorizationOf(headers: HeadersInit | undefined): string {
  if (headers === undefined) return '';
  if (!(headers instanceof Headers) && !Array.isArray(headers)) {
    const plain = headers as Record<string, string | undefined>;
    return plain.Authorization ?? plain.authorization ?? new Headers(headers).get('authorization') ?? '';
  }
  return new Headers(headers).get('authorization') ?? '';
}

/** Scopes by authorization header, hashed once each (a copy has one or a few tokens). */
const scopes = new Map<string, string>();

/** A per-workspace scope from the token, so windows of two workspaces never mix. No secret leaves. */
function scopeOf(init: RequestInit | undefined): string {
  const auth = authorizationOf(init?.headers);
  if (!auth) return 'anon';
  let scope = scopes.get(auth);
  if (scope === undefined) {
    scope = createHash('sha256').update(auth).digest('hex').slice(0, 12);
    // Bounded: an app serving many workspaces hashes again past this many, it never grows without end.
    if (scopes.size >= 1000) scopes.clear();
    scopes.set(auth, scope);
  }
  return scope;
}

/** Methods Slack limits per channel (chat.postMessage: about one a second in each), so each channel has its own window. */
const PER_CHANNEL = new Set(['chat.postMessage', 'chat.postEphemeral']);

/** The `channel` a call names, from the form or JSON body the WebClient sends. */
export function channelOf(body: unknown): string | undefined {
  let text: string | undefined;
  if (typeof body === 'string') text = body;
  else if (body instanceof URLSearchParams) return body.get('channel') ?? undefined;
  else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) text = Buffer.from(body as ArrayBuffer).toString('utf8');
  if (text === undefined) return undefined;
  if (text.startsWith('{')) {
    try {
      const channel = (JSON.parse(text) as { channel?: unknown }).channel;
      return typeof channel === 'string' ? channel : undefined;
    } catch {
      return undefined;
    }
  }
  return new URLSearchParams(text).get('channel') ?? undefined;
}

/** Whether a body can be sent a second time. */
function replayable(body: unknown): boolean {
  return (
    body === undefined ||
    body === null ||
    typeof body === 'string' ||
    body instanceof URLSearchParams ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body)
  );
}

function throttleOf(response: Response, text: string | undefined): { state: string; body: { ok: boolean | null; error: string | null } } | undefined {
  if (response.status === 429) {
    let body: { ok?: unknown; error?: unknown } = {};
    try {
      body = JSON.parse(text ?? '') as typeof body;
    } catch {
      /* a 429 needs no body */
    }
    return { state: 'throttled-429', body: { ok: typeof body.ok === 'boolean' ? body.ok : null, error: typeof body.error === 'string' ? body.error : null } };
  }
  if (response.status !== 200 || text === undefined) return undefined;
  if (!text.includes('ratelimited') && !text.includes('rate_limited')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { state } = classifyResponse(200, body);
  const error = (body as { error?: unknown }).error === 'rate_limited' ? 'rate_limited' : 'ratelimited';
  return isThrottled(state) ? { state, body: { ok: false, error } } : undefined;
}

/**
 * Asked right before a request leaves, after every wait (a closed window, a
 * paced slot, a queue): `check` resolves when the call may go, throws to keep
 * it from being sent. A turn's fence (lib/turn/fence.ts) is one.
 */
export interface SendGuard {
  check(): Promise<void>;
}

/** The rate-limit fetch, which also says whether a method's window is closed now (for every workspace token). */
export type RateLimitFetch = typeof fetch & {
  /**
   * The same fetch, sharing every window, whose requests each pass `guard`
   * at the moment they would leave: a turn's writes go out only while it
   * still owns the turn, however long they waited (a copy frozen in a
   * window, then taken over, writes nothing when it wakes).
   */
  fenced(guard: SendGuard): typeof fetch;
  /**
   * True while a call of `method` made now would wait: Slack's window is
   * closed here or, as last learnt, on another copy, or calls are paced
   * after a refusal and the next slot is taken. For a method limited per
   * channel: in any channel.
   */
  closed(method: string): boolean;
};

export function createRateLimitFetch(options: RateLimitFetchOptions = {}): RateLimitFetch {
  const send = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const maxAttempts = options.maxAttempts ?? 4;
  const budgetMs = options.budgetMs ?? 120_000;
  const gates = new Map<string, MethodGate>();

  const gateFor = (key: string) => {
    let gate = gates.get(key);
    if (!gate) {
      gate = new MethodGate({ now, sleep, maxPaceMs: options.maxPaceMs });
      gates.set(key, gate);
    }
    return gate;
  };

  /** Adopt another copy's window for this method, if one is known to be closed. */
  const syncShared = (key: string, gate: MethodGate) => {
    const reopenAt = options.shared?.known(key);
    if (reopenAt !== undefined && reopenAt > now() && reopenAt > gate.reopenAt) gate.close(reopenAt, reopenAt - now());
  };

  const onAnswer = options.onAnswer;
  /** The network's fetch, each answer read once and shown to `onAnswer`. */
  const sendRead = async (method: string, input: RequestInfo | URL, init?: RequestInit): Promise<{ response: Response; text: string | undefined }> => {
    const read = await readAnswer(await send(input, init));
    if (onAnswer) observeAnswer(method, read.response.status, read.text, onAnswer);
    return read;
  };

  const rateLimitFetch = async (input: RequestInfo | URL, init: RequestInit | undefined, guard: SendGuard | undefined): Promise<Response> => {
    const method = methodOf(input);
    if (!replayable(init?.body)) {
      await guard?.check();
      return (await sendRead(method, input, init)).response;
    }
    const channel = PER_CHANNEL.has(method) ? channelOf(init?.body) : undefined;
    const key = channel ? `${scopeOf(init)}:${method}:${channel}` : `${scopeOf(init)}:${method}`;
    const gate = gateFor(key);
    const started = now();
    let pending: Omit<RefusalRecord, 'waited'> | undefined;
    let refusedAt = 0;
    let lastWindow = 0;

    syncShared(key, gate);
    // Not p-retry: the wait is Slack's Retry-After, shared by every caller of the method, not a backoff of ours.
    for (let attempt = 1; ; attempt++) {
      const outcome = await gate
        .pass(
          async () => {
            if (pending) options.onRefusal?.({ ...pending, waited: (now() - refusedAt) / 1000 });
            pending = undefined;
            // The last thing before the request leaves: nothing else awaits between the guard and send.
            await guard?.check();
            const { response, text } = await sendRead(method, input, init);
            const throttle = throttleOf(response, text);
            if (!throttle) gate.accepted(now());
            return { response, throttle };
          },
          (waitMs) => {
            if (now() + waitMs - started > budgetMs) {
              throw new RateLimitExhaustedError(method, lastWindow, attempt - 1);
            }
          },
        )
        .catch((error: unknown) => {
          if (pending) options.onRefusal?.({ ...pending, waited: null });
          throw error;
        });
      const { response, throttle } = outcome;
      if (!throttle) return response;

      const window = retryAfterSeconds(response.headers);
      lastWindow = window.seconds;
      refusedAt = now();
      const reopenAt = refusedAt + window.seconds * 1000;
      gate.close(reopenAt, window.seconds * 1000, window.source === 'header');
      options.shared?.publish(key, reopenAt);
      const raw = rawRetryAfter(response.headers);
      pending = {
        method,
        status: response.status,
        body: throttle.body,
        headers: { 'retry-after': raw === undefined || raw === null ? null : String(raw) },
        at: new Date(refusedAt).toISOString(),
        instance: options.instance ?? 'unknown',
      };
      await response.body?.cancel().catch(() => {});
      if (attempt >= maxAttempts || reopenAt - started > budgetMs) {
        options.onRefusal?.({ ...pending, waited: null });
        throw new RateLimitExhaustedError(method, window.seconds, attempt);
      }
    }
  };
  const closed = (method: string): boolean => {
    const t = now();
    for (const [key, gate] of gates) {
      // `scope:method`, or `scope:method:channel` for a method limited per channel (closed in any channel).
      if (key.split(':')[1] !== method) continue;
      if (gate.waitMs() > 0 || (options.shared?.known(key) ?? 0) > t) return true;
    }
    return false;
  };
  const plain = ((input: RequestInfo | URL, init?: RequestInit) => rateLimitFetch(input, init, undefined)) as typeof fetch;
  const fenced = (guard: SendGuard): typeof fetch => ((input: RequestInfo | URL, init?: RequestInit) => rateLimitFetch(input, init, guard)) as typeof fetch;
  return Object.assign(plain, { closed, fenced });
}
