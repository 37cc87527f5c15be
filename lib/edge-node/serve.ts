/** Serving a Web-standard `(Request) => Response` handler from node:http. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { answerThenLinger, guardedListener, guardRequests, serverOptions, serverTimeouts, type ServerTimeouts } from '../http/index.js';

/**
 * The request body as a Web stream that reads only as fast as it is pulled.
 * Cancelling it stops reading without tearing the socket down, so a refusal
 * (413) still reaches the caller; the connection is closed after it. Once
 * cancelled, the request's later events (the 413's drain reads the rest of a
 * chunked body to its 'end') no longer reach the stream: closing a cancelled
 * stream throws, and from an event listener that throw ended the process.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  const onData = guardedListener(req, (chunk: Buffer) => {
    if (!open) return;
    current?.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    req.pause();
  });
  const detach = () => {
    open = false;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
  };
  const onEnd = guardedListener(req, () => {
    if (!open) return;
    detach();
    current?.close();
  });
  const onError = guardedListener(req, (error: Error) => {
    if (!open) return;
    detach();
    current?.error(error);
  });
  let current: ReadableStreamDefaultController<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      current = controller;
      req.pause();
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', onError);
    },
    pull() {
      if (open) req.resume();
    },
    cancel() {
      detach();
      req.pause();
    },
  });
}

/** The request with its body as a stream: the handler decides how much to read (the edge stops at its limit). */
function toRequest(req: IncomingMessage, base: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = req.method ?? 'GET';
  const body = method !== 'GET' && method !== 'HEAD' ? bodyStream(req) : undefined;
  return new Request(new URL(req.url ?? '/', base), { method, headers, body, duplex: 'half' } as RequestInit);
}

/** What the Worker's `ctx.waitUntil` is on Node: the work goes on after the answer; its failure is its own. */
const nodeContext = { waitUntil: (promise: Promise<unknown>) => void promise.catch(() => {}) };

export interface ServeOptions {
  /** The handler's body limit: the request timeout leaves time for a body this large. @default 1 MiB */
  maxBodyBytes?: number;
  /** Header and request timeouts. @default 5 s, then the body limit at 64 KiB/s (lib/http) */
  timeouts?: Partial<ServerTimeouts>;
  /** Told of a request whose handling failed (it got 500, or its connection closed). @default nothing */
  onError?: (error: unknown) => void;
}

export function serveFetchHandler(handler: (request: Request, ctx: typeof nodeContext) => Promise<Response>, options: ServeOptions = {}): Server {
  const timeouts = serverTimeouts(options.maxBodyBytes ?? 1_048_576, options.timeouts);
  // Bounded, so a connection trickling a byte every few seconds is closed (408), not held for Node's 300 s.
  // Guarded: a request whose handling throws, anywhere, ends with 500 (or a closed connection), never the process.
  return createServer(
    serverOptions(timeouts),
    guardRequests(
      async (req, res) => {
        const response = await handler(toRequest(req, `http://${req.headers.host ?? 'localhost'}`), nodeContext);
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        const body = new Uint8Array(await response.arrayBuffer());
        // A request body the handler left unread (refused early): answered whole, then drained, so the
        // connection closes cleanly instead of resetting under a client that is still sending.
        if (!req.complete) return answerThenLinger(req, res, response.status, body, headers);
        res.writeHead(response.status, headers);
        res.end(body);
      },
      options.onError ?? (() => {}),
    ),
  );
}
