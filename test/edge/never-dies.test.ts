/**
 * The edge never dies of a request. Before: a 6 MB body sent chunked (no Content-Length) to `npm run edge` got its
 * 413, and a later one killed the process ("Controller is already closed": the router cancelled the body stream at
 * the limit, the 413's linger resumed the request, its 'end' closed the cancelled stream, and nothing caught the throw).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveFetchHandler } from '../../lib/edge-node/index.js';
import { guardedListener, guardRequests } from '../../lib/http/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { type EdgeProcess, spawnEdge } from '../support/edge-process.js';
import { postChunked } from '../support/post-chunked.js';
import { slowPost } from '../support/slow-post.js';

const SECRET = 'edge-test-secret';

describe('`npm run edge` against oversized bodies, chunked and not', () => {
  let edge: EdgeProcess | undefined;
  beforeAll(async () => {
    edge = await spawnEdge(SECRET);
  });
  afterAll(() => {
    edge?.child.kill('SIGKILL');
  });

  it('answers 413 to each of eight 6 MB bodies (chunked and with a length), and is still up and serving after them', async () => {
    const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(6 * 1024 * 1024) }));
    const headers = { 'content-type': 'application/json', ...(await signedHeaders(SECRET, body, Date.now())) };
    const statuses: Array<number | string> = [];
    const url = `http://127.0.0.1:${edge!.port}/slack/events`;
    for (let i = 0; i < 8; i++) statuses.push(await (i % 2 === 0 ? postChunked(url, headers, body) : slowPost(url, headers, body)));
    expect({ statuses, exitCode: edge!.child.exitCode, crash: edge!.output().match(/ERR_[A-Z_]+/)?.[0] }).toEqual({
      statuses: Array(8).fill(413),
      exitCode: null,
      crash: undefined,
    });
    expect((await fetch(`http://127.0.0.1:${edge!.port}/slack/health`)).status).toBe(200);
  });
});

describe('a request whose handling throws ends that request, never the server', () => {
  let server: ReturnType<typeof serveFetchHandler> | undefined;
  let base = '';
  beforeAll(async () => {
    server = serveFetchHandler(async (request) => {
      const path = new URL(request.url).pathname;
      if (path === '/throws') throw new Error('handler threw');
      if (path === '/bad-body') {
        // A body that fails after the handler returned: the answer cannot be read.
        return new Response(new ReadableStream({ pull: (c) => c.error(new Error('body failed')) }));
      }
      return new Response('fine');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it('a handler that throws gets 500, a body that fails gets 500, and the next request is served', async () => {
    expect((await fetch(`${base}/throws`)).status).toBe(500);
    expect((await fetch(`${base}/bad-body`)).status).toBe(500);
    expect(await (await fetch(`${base}/ok`)).text()).toBe('fine');
  });
});

describe('a listener of the request that throws, once the answer is on its way', () => {
  it('closes that connection and the server serves the next request', async () => {
    const errors: unknown[] = [];
    const server = createServer(
      guardRequests(
        (req, res) => {
          if (req.url === '/late') {
            req.once(
              'end',
              guardedListener(req, () => {
                throw new Error('late listener threw');
              }),
            );
            req.resume();
            return;
          }
          res.end('fine');
        },
        (error) => errors.push(error),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const late = await fetch(`${base}/late`, { method: 'POST', body: 'x' }).then(
        (r) => r.status,
        (e: Error) => e.name,
      );
      expect(late).toBe('TypeError');
      expect(await (await fetch(`${base}/ok`)).text()).toBe('fine');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
