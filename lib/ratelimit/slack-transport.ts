/**
 * The network under the rate-limit fetch: a `fetch` for the WebClient's calls
 * that writes each POST straight onto kept-alive sockets (lib/http/wire.ts)
 * and answers with the text read once (a `ReadAnswer`). A call through the
 * WebClient costs about 1,000 us of CPU on undici's `fetch` and about 300 us
 * on this (`npm run bench -- --section wire`). A copy makes three Web API calls a
 * streamed turn (status, start, stop), so this is the larger part of what a
 * turn costs beyond stock Bolt's.
 *
 * What it sends is what the WebClient gives `fetch` (its method, URL, headers
 * and serialized body), plus `Host`, `Content-Length` and keep-alive. What it
 * leaves to `fetch`: anything but a POST of a string or form body (a file
 * upload's `FormData`, say), and every call when Node is told to use a proxy
 * (`NODE_USE_ENV_PROXY`), which only `fetch` honours.
 *
 * It fails as `fetch` fails, so the WebClient and the turn's failure
 * classification (lib/errors/turn-failure.ts) read it the same: a network
 * fault is `TypeError: fetch failed` with the socket's error as its `cause`
 * (a `code` such as `ECONNRESET`), no reply in time is `UND_ERR_HEADERS_TIMEOUT`
 * after undici's own 300 s, and an aborted signal rejects with its reason. It
 * never follows a redirect (the WebClient asks `redirect: 'error'`); a 3xx is
 * answered as it came, and the WebClient refuses any status but 200 and 429.
 */
import { STATUS_CODES } from 'node:http';
import { connector, Exchange, SocketPool } from '../http/wire.js';
import { fuse } from '../time/index.js';
import { type AnswerHeaders, ReadAnswer } from './answer.js';

export interface SlackTransportOptions {
  /** What carries the calls this one does not. @default globalThis.fetch */
  fallback?: typeof fetch;
  /** No whole reply within this long fails the call (undici's `headersTimeout` and `bodyTimeout`). @default 300000 */
  replyMs?: number;
  /** Sockets open at most per server (`fetch`'s undici pool has no bound; Slack's calls are few and short). @default 16 */
  maxSockets?: number;
  /** How long an idle socket is kept when the server gave no keep-alive hint (undici's `keepAliveTimeout`). @default 4000 */
  idleMs?: number;
  /** @default process.env */
  env?: Record<string, string | undefined>;
}

/** undici's default wait for a reply's headers, and then for its body (https://undici.nodejs.org/#/docs/api/Client). */
const REPLY_MS = 300_000;
/** undici's default for an idle socket the server gave no keep-alive hint for (https://undici.nodejs.org/#/docs/api/Client). */
const IDLE_MS = 4_000;

/** RFC 9110's token: what a header's name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header's value may not hold: a line break (it would start a header of its own) or NUL. */
const BAD_VALUE = /[\r\n\0]/;
/** Headers the transport writes itself. */
const OWN = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive']);

/** A reply's headers as the WebClient and the rate-limit layer read them (names in lower case). */
class ReplyHeaders implements AnswerHeaders {
  constructor(private readonly map: ReadonlyMap<string, string>) {}
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this.map) callback(value, name);
  }
  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}

/** `fetch failed`, as undici names a request that got no reply, with why as its cause. */
function fetchFailed(cause: Error): TypeError {
  return new TypeError('fetch failed', { cause });
}

/** The request's headers as lines, or the reason `fetch` would refuse them. */
function headerLines(headers: HeadersInit | undefined): string | TypeError {
  let lines = '';
  const add = (name: string, value: string): TypeError | undefined => {
    if (!HEADER_NAME.test(name)) return new TypeError(`Headers: invalid header name "${name}"`);
    if (BAD_VALUE.test(value)) return new TypeError(`Headers: invalid value for header "${name}"`);
    if (!OWN.has(name.toLowerCase())) lines += `${name}: ${value.trim()}\r\n`;
    return undefined;
  };
  const list: Iterable<[string, string]> =
    headers === undefined
      ? []
      : headers instanceof Headers || Array.isArray(headers)
        ? (headers as Iterable<[string, string]>)
        : Object.entries(headers as Record<string, string | undefined>).filter((e): e is [string, string] => e[1] !== undefined);
  for (const [name, value] of list) {
    const refused = add(name, String(value));
    if (refused) return refused;
  }
  return lines;
}

/** The body as text when the wire can carry it: a string or a form; else undefined (it goes by `fetch`). */
function bodyText(body: BodyInit | null | undefined): string | undefined {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

export function createSlackTransport(options: SlackTransportOptions = {}): typeof fetch {
  const fallback = options.fallback ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const replyMs = options.replyMs ?? REPLY_MS;
  const maxSockets = options.maxSockets ?? 16;
  const idleMs = options.idleMs ?? IDLE_MS;
  const env = options.env ?? process.env;
  /** One pool per server (a copy talks to one: Slack's Web API, or a test's fake). */
  const pools = new Map<string, SocketPool>();
  const poolFor = (url: URL): SocketPool => {
    let pool = pools.get(url.origin);
    if (!pool) {
      pool = new SocketPool(connector(url), maxSockets, idleMs);
      pools.set(url.origin, pool);
    }
    return pool;
  };

  const transport = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : undefined;
    const text = bodyText(init?.body);
    if (href === undefined || text === undefined || (init?.method ?? 'GET').toUpperCase() !== 'POST' || env.NODE_USE_ENV_PROXY) return fallback(input, init);
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return fallback(input, init);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fallback(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const lines = headerLines(init?.headers);
    if (lines instanceof TypeError) return Promise.reject(lines);
    const pool = poolFor(url);
    return new Promise<Response>((resolve, reject) => {
      const exchange = new Exchange(
        `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${lines}Connection: keep-alive\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
        (error, status, body, headers) => {
          cancel();
          signal?.removeEventListener('abort', onAbort);
          if (error) return reject(error === signal?.reason ? error : fetchFailed(error));
          resolve(new ReadAnswer(status, STATUS_CODES[status] ?? '', new ReplyHeaders(headers), url.href, body.toString('utf8')) as unknown as Response);
        },
      );
      const onAbort = () => pool.abandon(exchange, signal?.reason as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      // Anchored to this call alone, its wait for a socket included.
      const cancel = fuse(replyMs, () =>
        pool.abandon(exchange, Object.assign(new Error(`no reply within ${replyMs} ms`), { code: 'UND_ERR_HEADERS_TIMEOUT' })),
      );
      pool.send(exchange);
    });
  };
  return transport as typeof fetch;
}
