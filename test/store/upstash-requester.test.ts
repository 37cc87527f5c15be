/**
 * The store's transport reads HTTP/1.1 off its own sockets: each way a server
 * may frame a reply (a length, chunks, to the close), split anywhere, and each
 * way a connection may end, read as `node:http` read it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpRequester, StoreReplyError } from '../../lib/store/upstash-requester.js';

const servers: Array<Server | TcpServer> = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Each connection a server takes, destroyed after the test (a kept-alive one would hold `close` open). */
function track<T extends Server | TcpServer>(server: T): T {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  servers.push(server);
  return server;
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handler(req, res, body));
  });
  track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A server that answers every request on a connection with `reply` (raw bytes, in the pieces given). */
async function raw(pieces: (n: number) => string[], close = false): Promise<string> {
  let n = 0;
  const server = createTcpServer((socket) => {
    let seen = '';
    socket.on('data', (d) => {
      seen += d.toString('latin1');
      while (seen.includes('\r\n\r\n')) {
        const headEnd = seen.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(seen.slice(0, headEnd))?.[1] ?? 0);
        if (seen.length < headEnd + 4 + length) return;
        seen = seen.slice(headEnd + 4 + length);
        const parts = pieces(n++);
        for (const [i, p] of parts.entries()) setTimeout(() => socket.write(p, 'latin1'), i * 5);
        if (close) setTimeout(() => socket.end(), parts.length * 5 + 5);
      }
    });
    socket.on('error', () => {});
  });
  track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const requester = (url: string, attemptMs = 1000) => httpRequester({ url, token: 'tok', attemptMs });

describe('the store transport', () => {
  it('sends the command as JSON to its path with the bearer token, and reads the JSON reply', async () => {
    const seen: Array<{ url: string | undefined; auth: string | undefined; type: string | undefined; body: string }> = [];
    const { url } = await serve((req, res, body) => {
      seen.push({ url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: 'ünï' }));
    });
    const r = requester(`${url}/base`);
    expect(await r.request({ body: ['get', 'k'] })).toEqual({ result: 'ünï' });
    expect(await r.request({ path: ['pipeline'], body: [['get', 'k']] })).toEqual({ result: 'ünï' });
    expect(seen).toEqual([
      { url: '/base/', auth: 'Bearer tok', type: 'application/json', body: '["get","k"]' },
      { url: '/base/pipeline', auth: 'Bearer tok', type: 'application/json', body: '[["get","k"]]' },
    ]);
  });

  it('reads a chunked reply, and one split across writes, and keeps the connection for the next', async () => {
    let connections = 0;
    const { url, server } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"result":');
      setTimeout(() => res.end('"chunked"}'), 5);
    });
    server.on('connection', () => (connections += 1));
    const r = requester(url);
    for (let i = 0; i < 3; i++) expect(await r.request({ body: ['get', 'k'] })).toEqual({ result: 'chunked' });
    expect(connections).toBe(1);
  });

  it('reads a head split mid-line, a body to the close, and a chunked body split inside its sizes', async () => {
    const whole = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{"result":"a"}';
    const split = await raw(() => [whole.slice(0, 20), whole.slice(20, 70), whole.slice(70)]);
    expect(await requester(split).request({ body: ['get', 'k'] })).toEqual({ result: 'a' });
    const toClose = await raw(() => ['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{"result":', '"b"}'], true);
    expect(await requester(toClose).request({ body: ['get', 'k'] })).toEqual({ result: 'b' });
    const chunked = await raw(() => ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', 'a\r\n{"result":\r', '\n4\r\n"c"}\r\n0', '\r\n\r\n']);
    const r = requester(chunked);
    expect(await r.request({ body: ['get', 'k'] })).toEqual({ result: 'c' });
    expect(await r.request({ body: ['get', 'k'] })).toEqual({ result: 'c' });
  });

  it('an error status becomes a StoreReplyError naming it and the message, never the command', async () => {
    const { url } = await serve((_req, res) => res.writeHead(400).end(JSON.stringify({ error: 'ERR wrong number of arguments' })));
    const error = await requester(url)
      .request({ body: ['set', 'secret-key', 'secret-value'] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreReplyError);
    expect((error as StoreReplyError).message).toBe('HTTP 400: ERR wrong number of arguments');
    expect((error as StoreReplyError).status).toBe(400);
  });

  it('a body that is not JSON is refused with its status', async () => {
    const { url } = await serve((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>502</html>'));
    await expect(requester(url).request({ body: ['get', 'k'] })).rejects.toThrow('HTTP 502 with a body that is not JSON');
  });

  it('a connection closed before its reply is whole is a socket hang up, and the next request gets a new one', async () => {
    let n = 0;
    const { url } = await serve((req, res) => {
      if (n++ === 0) req.socket.destroy();
      else res.writeHead(200).end('{"result":1}');
    });
    const r = requester(url);
    await expect(r.request({ body: ['get', 'k'] })).rejects.toMatchObject({ message: 'socket hang up', code: 'ECONNRESET' });
    expect(await r.request({ body: ['get', 'k'] })).toEqual({ result: 1 });
  });

  it('a server that never answers fails on the fuse, and a refused connection fails at once', async () => {
    const { url } = await serve(() => {});
    await expect(requester(url, 50).request({ body: ['get', 'k'] })).rejects.toMatchObject({ name: 'TimeoutError', message: 'no answer within 50 ms' });
    await expect(requester('http://127.0.0.1:9', 1000).request({ body: ['get', 'k'] })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('at most 16 requests are on the wire at once; the rest wait for a socket and their fuse counts the wait', async () => {
    let open = 0;
    let most = 0;
    // Each answer is held until 16 are open at once (on a loaded machine the first could be answered before the 16th
    // was sent, and CI saw 15), then every answer comes 20 ms after its request.
    const answers: Array<() => void> = [];
    let sixteenSeen = false;
    const { url } = await serve((_req, res) => {
      open += 1;
      most = Math.max(most, open);
      const answer = () =>
        setTimeout(() => {
          open -= 1;
          res.writeHead(200).end('{"result":"ok"}');
        }, 20);
      if (sixteenSeen) return void answer();
      answers.push(answer);
      if (open === 16) {
        sixteenSeen = true;
        for (const a of answers.splice(0)) a();
      }
    });
    const r = requester(url);
    const replies = await Promise.all(Array.from({ length: 40 }, () => r.request({ body: ['get', 'k'] })));
    expect(replies.every((x) => (x as { result: string }).result === 'ok')).toBe(true);
    expect(most).toBe(16);
    // Against a server that holds every request: 16 are sent, the rest wait, and every one fails on its own fuse.
    // Held at once: a request given up closes its socket, and a waiting one may then go out on a new socket within its own fuse.
    let held = 0;
    let mostHeld = 0;
    const { url: holding } = await serve((req) => {
      held += 1;
      mostHeld = Math.max(mostHeld, held);
      req.socket.once('close', () => (held -= 1));
    });
    const held100 = requester(holding, 100);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => held100.request({ body: ['get', 'k'] })));
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).name : 'answered'))).toEqual(Array(20).fill('TimeoutError'));
    expect(mostHeld).toBeGreaterThan(0);
    expect(mostHeld).toBeLessThanOrEqual(16);
  });
});
