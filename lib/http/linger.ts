/**
 * Refusing a request whose body is still arriving (a 413) without resetting
 * the connection. Closing a socket with unread bytes in its receive buffer
 * makes the kernel send RST, and a client still sending (a 6 MB body) then
 * sees "connection reset" instead of the answer, about one run in four on
 * loopback. So the whole answer is written first, with its length and
 * `connection: close`; the rest of the body is read and dropped; the
 * response ends (and the socket closes, cleanly) when the body has ended,
 * after `lingerMs`, or after `LINGER_MAX_BYTES` drained, whichever comes
 * first (so a client sending gigabytes costs 2 s or 16 MiB of reading, not more).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a refused request's body is drained before its connection closes. @default 2000 */
export const LINGER_MS = 2_000;
/** The most of a refused body read and dropped before the connection closes anyway. */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;

export function answerThenLinger(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  lingerMs: number = LINGER_MS,
): void {
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers, 'content-length': String(payload.length), connection: 'close' });
  res.write(payload);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    res.end();
  };
  const timer = setTimeout(end, lingerMs);
  timer.unref?.();
  // All of it arrived already (it waits in memory, not in the socket): nothing to drain.
  if (req.complete || req.destroyed) {
    end();
    return;
  }
  req.once('end', end);
  req.once('close', end);
  req.once('error', end);
  req.removeAllListeners('data');
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_MAX_BYTES) end();
  });
  req.resume();
}
