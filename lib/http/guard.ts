/**
 * One request's failure is that request's alone. A request listener that
 * throws, rejects, or has a listener of its own throw on the request's
 * events (an `'end'` after the handler gave up on the body) would otherwise
 * be an uncaught exception, and an uncaught exception ends the process: every
 * later delivery refused. Here it ends the request instead: 500 when nothing
 * was answered yet, else the connection is closed, and the error is reported.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** Ends `res` after a failure: 500 with `connection: close` when nothing was sent, else the socket is closed. */
export function failRequest(req: IncomingMessage, res: ServerResponse): void {
  try {
    if (!res.headersSent && !res.writableEnded) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('internal error');
      return;
    }
  } catch {
    // Writing the 500 failed too: the socket is closed below.
  }
  if (!res.writableEnded) res.destroy();
  req.destroy();
}

/** `listener` with every failure of its own ended as `failRequest` ends it, and `onError` told once a request. */
export function guardRequests(listener: RequestListener, onError: (error: unknown) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      try {
        onError(error);
      } catch {
        // A logger that throws must not undo the guard.
      }
      failRequest(req, res);
    };
    try {
      const done = listener(req, res);
      if (done && typeof done.then === 'function') done.then(undefined, fail);
    } catch (error) {
      fail(error);
    }
  };
}

/**
 * `fn` as an event listener of `req` that cannot throw out of the event: a
 * throw ends the request and closes its connection (a request already read
 * to its end keeps its socket when only it is destroyed), not the process.
 */
export function guardedListener<A extends unknown[]>(req: IncomingMessage, fn: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      fn(...args);
    } catch (error) {
      req.destroy(error instanceof Error ? error : new Error(String(error)));
      req.socket?.destroy();
    }
  };
}
