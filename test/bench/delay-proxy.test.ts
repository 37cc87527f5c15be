/**
 * The turn bench's delay proxy (bench/delay-proxy.ts), which puts the store and Slack a round trip
 * away: what passes through it arrives whole and in order, both ways, and each HTTP request is counted
 * once as it reaches the server behind it (the far bench's count of store requests).
 */
import { createServer, Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDelayProxy, type DelayProxy } from '../../bench/delay-proxy.js';

/** An echo: answers each POST with its body, written back piece by piece as it comes, so order matters both ways. */
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-length': req.headers['content-length'] });
  req.on('data', (c: Buffer) => res.write(c));
  req.on('end', () => res.end());
});
let proxy: DelayProxy;
const requests: number[] = [];

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy = await startDelayProxy({ targetPort: (server.address() as AddressInfo).port, roundTripMs: 10, onRequest: () => requests.push(1) });
});
afterAll(async () => {
  await proxy.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function echo(body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxy.port, method: 'POST', path: '/', agent, headers: { 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    });
    req.on('error', reject);
    void (async () => {
      // Written in small pieces, a turn of the event loop apart: each its own chunk through the proxy.
      for (let i = 0; i < body.length; i += 1000) {
        req.write(body.subarray(i, i + 1000));
        await new Promise((r) => setImmediate(r));
      }
      req.end();
    })();
  });
}

it('bodies arrive whole and in order both ways, and each request on a kept-alive connection is counted once', async () => {
  const bodies = [0, 1, 2].map((k) => Buffer.from(Array.from({ length: 50_000 }, (_, i) => String.fromCharCode(65 + ((i * 7 + k) % 26))).join('')));
  for (const body of bodies) expect((await echo(body)).equals(body)).toBe(true);
  expect(requests).toHaveLength(3);
});
