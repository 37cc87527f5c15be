/** Serving a Web-standard `(Request) => Response` handler from node:http. */
import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * The request body as a Web stream that reads only as fast as it is pulled.
 * Cancelling it stops reading without tearing the socket down, so a refusal
 * (413) still reaches the caller; the connection is closed after it.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.pause();
      req.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        req.pause();
      });
      req.once('end', () => controller.close());
      req.once('error', (error) => controller.error(error));
    },
    pull() {
      req.resume();
    },
    cancel() {
      req.pause();
      req.removeAllListeners('data');
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

export function serveFetchHandler(handler: (request: Request, ctx: typeof nodeContext) => Promise<Response>): Server {
  return createServer((req, res) => {
    Promise.resolve()
      .then(() => handler(toRequest(req, `http://${req.headers.host ?? 'localhost'}`), nodeContext))
      .then(async (response) => {
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        // A request body the handler left unread (refused early) is not waited for.
        if (!req.readableEnded) headers.connection = 'close';
        res.writeHead(response.status, headers);
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  });
}
