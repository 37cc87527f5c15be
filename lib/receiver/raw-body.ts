/**
 * The raw request body, refused past a size limit before it is all read.
 * Expected outcomes are values: `too-large` leaves the request paused and
 * its socket open (so the 413 can still reach the client, see
 * lib/http/linger.ts), `aborted` is a client that went away mid-body.
 */
import type { IncomingMessage } from 'node:http';

export type RawBody = { kind: 'body'; raw: Buffer } | { kind: 'too-large'; limitBytes: number } | { kind: 'aborted' };

export function readRawBody(req: IncomingMessage, limitBytes: number): Promise<RawBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.resolve({ kind: 'too-large', limitBytes });
  if (req.readableEnded) return Promise.resolve({ kind: 'body', raw: Buffer.alloc(0) });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: RawBody) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.pause();
        return settle({ kind: 'too-large', limitBytes });
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle({ kind: 'body', raw: Buffer.concat(chunks) });
    const onAbort = () => settle({ kind: 'aborted' });
    // A request whose socket closed before its body ended (Node 20 emits 'close' without an 'error' when nothing listens for it).
    const onClose = () => {
      if (!req.readableEnded) settle({ kind: 'aborted' });
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onAbort);
    req.once('close', onClose);
  });
}
