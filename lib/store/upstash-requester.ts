/**
 * The transport under @upstash/redis: HTTP/1.1 written straight onto kept-alive
 * sockets (lib/http/wire.ts), not `fetch` (about 1.6 ms of CPU a command here
 * with the SDK's own client) nor `node:http`'s request machinery: each command
 * is one write of its whole request and a read of one reply. One exchange at a
 * time on a socket, at most 16 sockets, each request with a fresh fuse of its own.
 *
 * It asks for plain JSON (no `Upstash-Encoding: base64`), so no reply depends
 * on how the service encodes an `OK` inside an array. An error reply becomes
 * an Error that names the status and Upstash's message, never the command
 * (the SDK's own message ends with the whole command, stored bodies included).
 */
import type { Requester, UpstashRequest, UpstashResponse } from '@upstash/redis';
import { connector, Exchange, ReplyError, SocketPool } from '../http/wire.js';
import { fuse } from '../time/index.js';

export class StoreReplyError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'StoreReplyError';
  }
}

export interface RequesterOptions {
  url: string;
  token: string;
  /** The fuse of one HTTP request. */
  attemptMs: number;
  /** Told how many commands each request carries (Upstash bills each one; a pipeline's each, a script as one). */
  onCommands?: (count: number) => void;
}

/** Commands a REST request carries: one, or each of a pipeline's or a transaction's. */
export function commandsIn(path: readonly string[] | undefined, body: unknown): number {
  const last = path?.[path.length - 1];
  return (last === 'pipeline' || last === 'multi-exec') && Array.isArray(body) ? body.length : 1;
}

/** Sockets open at most per requester (`maxSockets` of the `node:http` agent this replaced). */
const MAX_SOCKETS = 16;

export function httpRequester(options: RequesterOptions): Requester {
  const base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
  // What every request's head says after its request line: the same for every command.
  const fixed = `Host: ${base.host}\r\nAuthorization: Bearer ${options.token}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nContent-Length: `;
  /** Each path's request line and fixed headers, worked out once (a copy sends to two or three: the root, `pipeline`, `multi-exec`). */
  const heads = new Map<string, string>();
  const headOf = (path: readonly string[] | undefined): string => {
    const joined = path === undefined || path.length === 0 ? '' : path.join('/');
    let head = heads.get(joined);
    if (head === undefined) {
      const url = new URL(joined, base);
      head = `POST ${url.pathname}${url.search} HTTP/1.1\r\n${fixed}`;
      heads.set(joined, head);
    }
    return head;
  };
  const sockets = new SocketPool(connector(base), MAX_SOCKETS);

  const request = <T>(req: UpstashRequest): Promise<UpstashResponse<T>> =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(req.body);
      options.onCommands?.(commandsIn(req.path, req.body));
      const exchange = new Exchange(`${headOf(req.path)}${Buffer.byteLength(payload)}\r\n\r\n${payload}`, (error, status, body) => {
        cancel();
        // A reply the wire could not read is the store's, as every other bad reply.
        if (error instanceof ReplyError) return reject(new StoreReplyError(error.message, error.status));
        if (error) return reject(error);
        let parsed: unknown;
        try {
          parsed = JSON.parse(body.toString('utf8'));
        } catch {
          return reject(new StoreReplyError(`HTTP ${status} with a body that is not JSON`, status));
        }
        if (status < 200 || status >= 300) {
          const message = typeof (parsed as { error?: unknown })?.error === 'string' ? (parsed as { error: string }).error : 'no message';
          return reject(new StoreReplyError(`HTTP ${status}: ${message.slice(0, 120)}`, status));
        }
        resolve(parsed as UpstashResponse<T>);
      });
      // Anchored to this request alone, its wait for a socket included; it fires only after pending I/O is read (lib/time).
      const cancel = fuse(options.attemptMs, () => sockets.abandon(exchange, new DOMException(`no answer within ${options.attemptMs} ms`, 'TimeoutError')));
      sockets.send(exchange);
    });

  return { request } as Requester;
}
