/**
 * The edge on Node (`npm run edge`) enforces its body limit while reading: a slow oversized body is refused, not
 * buffered; its 413 reaches a client still sending; a connection trickling its headers is closed.
 */
import { request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeRouter, parseEdgeSettings } from '../../lib/edge/index.js';
import { serveFetchHandler } from '../../lib/edge-node/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { useFakeCopies } from '../support/fixtures.js';
import { slowPost } from '../support/slow-post.js';

/**
 * `npm run edge` for this file: the router over the fake copies, served by lib/edge-node; `capped` passes
 * the settings' body limit to the server as app/edge-node.ts does. `events` is its /slack/events URL.
 */
function useNodeEdge(env: Record<string, string>, capped: boolean) {
  const copies = useFakeCopies();
  let server: ReturnType<typeof serveFetchHandler> | undefined;
  const edge = { ...copies, events: '' };
  beforeAll(async () => {
    const settings = parseEdgeSettings({ HUB_URL: copies.hub.url, CLOUD_URL: copies.cloud.url, SLACK_SIGNING_SECRET: 's', ...env });
    server = serveFetchHandler(createEdgeRouter({ settings }).handle, capped ? { maxBodyBytes: settings.maxBodyBytes } : {});
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    edge.events = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(() => {
    server?.closeAllConnections();
    server?.close();
  });
  return edge;
}

describe('the edge on Node against an oversized body sent slowly', () => {
  const edge = useNodeEdge({ EDGE_MAX_BODY_BYTES: '2048' }, false);

  it('answers 413 once the limit is passed, while the sender is still sending, and forwards nothing', async () => {
    let sent = 0;
    let stopped = false;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(edge.events, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        stopped = true;
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (error) => (stopped ? undefined : reject(error)));
      // 512 bytes every 20 ms, with no Content-Length: 64 KiB if nobody stopped it.
      const tick = () => {
        if (stopped || sent >= 65_536) return void req.end();
        req.write('x'.repeat(512));
        sent += 512;
        setTimeout(tick, 20);
      };
      tick();
    });
    expect(status).toBe(413);
    expect(sent).toBeLessThan(65_536);
    expect(edge.hub.received).toHaveLength(0);
    expect(edge.cloud.received).toHaveLength(0);
  });

  it('a Content-Length over the limit is refused before a byte of the body is read', async () => {
    const response = await fetch(edge.events, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(4096) });
    expect(response.status).toBe(413);
  });
});

describe('the edge on Node against a signed 6 MB body sent as a network sends it', () => {
  const edge = useNodeEdge({}, true);

  it('gets its 413 every time (20 of 20), never a reset or a broken pipe, and forwards nothing', async () => {
    const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(6 * 1024 * 1024) }));
    const statuses: Array<number | string> = [];
    for (let i = 0; i < 20; i++) {
      statuses.push(await slowPost(edge.events, { 'content-type': 'application/json', ...(await signedHeaders('s', body, Date.now())) }, body));
    }
    expect(statuses).toEqual(Array(20).fill(413));
    expect(edge.hub.received).toHaveLength(0);
  });
});

describe('the edge on Node against a connection trickling its headers', () => {
  it("its default timeouts are 5 s for headers and the body limit's worth for the request, not Node's 300 s", () => {
    const server = serveFetchHandler(async () => new Response(null), { maxBodyBytes: 1_048_576 });
    expect([server.headersTimeout, server.requestTimeout]).toEqual([5_000, 21_000]);
  });

  it('closes the connection with 408 once its header timeout passes', async () => {
    const server = serveFetchHandler(async () => new Response(null), { timeouts: { headersTimeoutMs: 300 } });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
        let seen = '';
        let timer: ReturnType<typeof setInterval> | undefined;
        socket.on('connect', () => {
          socket.write('POST /slack/events HTTP/1.1\r\nHost: x\r\nX-Slow: ');
          timer = setInterval(() => socket.writable && socket.write('x'), 50);
        });
        socket.on('data', (d) => (seen += d.toString('latin1')));
        socket.on('error', () => {});
        socket.on('close', () => {
          clearInterval(timer);
          resolve(seen);
        });
        socket.setTimeout(30_000, () => reject(new Error('the edge never closed the trickling connection')));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
