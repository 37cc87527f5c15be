/**
 * A body written whole with no Content-Length (so chunked), as curl sends a
 * file. Resolves with the status it was answered, or with what went wrong
 * (`EPIPE`, `ECONNRESET`): never rejects.
 */
import { request } from 'node:http';

export function postChunked(url: string, headers: Record<string, string>, body: Buffer): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'request error'));
    req.write(body);
    req.end();
  });
}
