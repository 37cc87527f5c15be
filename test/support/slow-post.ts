/**
 * A client that sends a body the way a network delivers it: in pieces, a
 * little at a time, as the tunnel or Slack would, rather than all at once
 * into a loopback buffer. Resolves with the status it was answered, or with
 * what went wrong (`EPIPE`, `ECONNRESET`, `no answer`): never rejects.
 */
import { request } from 'node:http';

export function slowPost(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  o: { chunkBytes?: number; everyMs?: number; declareLength?: boolean } = {},
): Promise<number | string> {
  const chunkBytes = o.chunkBytes ?? 65_536;
  const everyMs = o.everyMs ?? 1;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (value: number | string) => {
      if (!settled) {
        settled = true;
        resolve(value);
      }
    };
    const sent = o.declareLength === false ? headers : { ...headers, 'content-length': String(body.length) };
    const req = request(url, { method: 'POST', headers: sent }, (res) => {
      res.resume();
      res.on('end', () => settle(res.statusCode ?? 0));
      res.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? 'response error'));
    });
    req.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? 'request error'));
    req.on('close', () => settle('no answer'));
    let at = 0;
    const tick = () => {
      if (settled || req.destroyed) return;
      if (at >= body.length) return void req.end();
      req.write(body.subarray(at, at + chunkBytes));
      at += chunkBytes;
      setTimeout(tick, everyMs);
    };
    tick();
  });
}
