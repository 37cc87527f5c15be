/**
 * The Slack transport carries a real WebClient's calls over kept-alive
 * sockets: what reaches the server is what the WebClient sent, what comes back
 * reads as `fetch`'s answer, and every way a call fails is the way `fetch`
 * fails it (the WebClient and the turn's failure classification read both).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebClient, type WebAPIRequestError } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyTurnFailure } from '../../lib/errors/index.js';
import { silentLogger, slackLogger } from '../../lib/log/index.js';
import { createRateLimitFetch, createSlackTransport } from '../../lib/ratelimit/index.js';

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A Web API stand-in: each request read whole, then `answer`ed; it counts the connections it took. */
async function serve(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      answer(req, res, body);
    });
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  return { url, seen, server, connections: () => connections };
}

const ok = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));

const client = (url: string, fetch: typeof globalThis.fetch) =>
  new WebClient('xoxb-test', { slackApiUrl: url, retryConfig: { retries: 0 }, fetch, logger: slackLogger(silentLogger) });

describe('the Slack transport', () => {
  it("carries a WebClient's call as sent (path, token, content type, body) and its answer reads as fetch's (status, headers, JSON)", async () => {
    // Catches: a request line, header or body the wire dropped or mangled; an answer whose headers the WebClient cannot read.
    const api = await serve((_req, res) => ok(res, { ok: true, ts: '1.2' }, { 'x-oauth-scopes': 'chat:write, im:write' }));
    const result = await client(api.url, createSlackTransport()).chat.postMessage({ channel: 'C1', thread_ts: '1.1', text: 'héllo & more' });
    expect(result).toMatchObject({ ok: true, ts: '1.2', response_metadata: { scopes: ['chat:write', 'im:write'] } });
    const [call] = api.seen;
    expect(call).toMatchObject({ method: 'POST', url: '/api/chat.postMessage' });
    expect(call!.headers.authorization).toBe('Bearer xoxb-test');
    expect(call!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(call!.headers['user-agent']).toMatch(/@slack:web-api/);
    expect(Object.fromEntries(new URLSearchParams(call!.body))).toMatchObject({ channel: 'C1', thread_ts: '1.1', text: 'héllo & more' });
  });

  it('sends one call after another over one kept-alive socket', async () => {
    // Catches: a socket opened per call (the handshake and the CPU the wire exists to save).
    const api = await serve((_req, res) => ok(res, { ok: true }));
    const web = client(api.url, createSlackTransport());
    for (let i = 0; i < 3; i++) await web.auth.test();
    expect(api.seen).toHaveLength(3);
    expect(api.connections()).toBe(1);
  });

  it('does not trust an idle socket past idleMs when the server gave no keep-alive hint (as undici drops one after 4 s)', async () => {
    // Catches: an idle socket kept forever, which a server or a load balancer may have closed by the next call.
    const api = await serve((_req, res) => ok(res, { ok: true }));
    // Node's server hints `Keep-Alive: timeout=5` unless its keep-alive timeout is off; off, it keeps the socket and says nothing.
    api.server.keepAliveTimeout = 0;
    const web = client(api.url, createSlackTransport({ idleMs: 0 }));
    await web.auth.test();
    await web.auth.test();
    expect(api.seen).toHaveLength(2);
    expect(api.connections()).toBe(2);
  });

  it("answers a 429's Retry-After so the rate-limit fetch waits it and sends again", async () => {
    // Catches: reply headers the rate-limit layer cannot read (a throttle taken for a failure, or Slack's window ignored).
    let n = 0;
    const api = await serve((_req, res) => {
      n += 1;
      if (n === 1) res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' }).end('{"ok":false,"error":"ratelimited"}');
      else ok(res, { ok: true, ts: '9.9' });
    });
    // A clock of the test's own: the wait is Slack's 7 s to the millisecond, whatever the machine's pace.
    let t = 1_000_000;
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      t += ms;
    };
    const fetch = createRateLimitFetch({ fetch: createSlackTransport(), now: () => t, sleep });
    const result = await client(api.url, fetch).chat.postMessage({ channel: 'C1', text: 'hi' });
    expect(result.ts).toBe('9.9');
    expect(waits).toEqual([7000]);
    expect(api.seen).toHaveLength(2);
  });

  it('fails a connection closed before its reply as fetch does: TypeError "fetch failed" with ECONNRESET as its cause, a connection fault the turn may retry', async () => {
    // Catches: a failure shape the turn's classification does not know (a dropped reply made permanent, the turn dead-lettered).
    const api = await serve((req) => req.socket.destroy());
    const error = (await client(api.url, createSlackTransport())
      .chat.postMessage({ channel: 'C1', text: 'hi' })
      .catch((e: unknown) => e)) as WebAPIRequestError;
    expect(error.code).toBe('slack_webapi_request_error');
    expect(error.original).toBeInstanceOf(TypeError);
    expect(error.original.message).toBe('fetch failed');
    expect((error.original.cause as { code?: string }).code).toBe('ECONNRESET');
    expect(classifyTurnFailure(error)).toMatchObject({ kind: 'transient', ambiguous: true, reason: 'connection: ECONNRESET' });
  });

  it('fails a refused connection as never sent (ECONNREFUSED), so the turn may run again without a second answer', async () => {
    // Catches: a refused connection read as one whose request may have been acted on.
    const api = await serve((_req, res) => ok(res, { ok: true }));
    await new Promise((r) => servers.pop()!.close(r));
    const error = await client(api.url, createSlackTransport())
      .auth.test()
      .catch((e: unknown) => e);
    expect(classifyTurnFailure(error)).toMatchObject({ kind: 'transient', ambiguous: false, reason: 'connection: ECONNREFUSED' });
  });

  it('gives up a call whose signal aborts with the reason, and the next call is answered', async () => {
    // Catches: an abort that leaves the call hanging, or leaves its socket to carry the next call's reply.
    let held: ServerResponse | undefined;
    const api = await serve((_req, res) => {
      if (!held) held = res;
      else ok(res, { ok: true, n: 2 });
    });
    const transport = createSlackTransport();
    const controller = new AbortController();
    const first = transport(`${api.url}auth.test`, { method: 'POST', body: 'a=1', signal: controller.signal });
    await expect.poll(() => api.seen.length).toBe(1);
    controller.abort(new DOMException('gave up', 'AbortError'));
    await expect(first).rejects.toMatchObject({ name: 'AbortError', message: 'gave up' });
    const second = await transport(`${api.url}auth.test`, { method: 'POST', body: 'a=2' });
    expect(await second.json()).toEqual({ ok: true, n: 2 });
  });

  it('fails a call with no reply within replyMs as undici does (UND_ERR_HEADERS_TIMEOUT), a connection fault the turn may retry', async () => {
    // Catches: a Web API that never answers holding the turn (and its mention) forever.
    const api = await serve(() => {});
    const error = await client(api.url, createSlackTransport({ replyMs: 50 }))
      .auth.test()
      .catch((e: unknown) => e);
    expect(classifyTurnFailure(error)).toMatchObject({ kind: 'transient', reason: 'connection: UND_ERR_HEADERS_TIMEOUT' });
  });

  it('refuses a header value with a line break before anything is sent, as fetch does', async () => {
    // Catches: a value that would write a header of its own into the request (a token read with a stray newline).
    const api = await serve((_req, res) => ok(res, { ok: true }));
    const refused = createSlackTransport()(`${api.url}auth.test`, { method: 'POST', headers: { authorization: 'Bearer x\r\nX-Evil: 1' }, body: '' });
    await expect(refused).rejects.toThrow(TypeError);
    expect(api.connections()).toBe(0);
  });

  it('leaves to fetch what it does not carry: a body that is not text (a file upload), a GET, and every call when Node is told to use a proxy', async () => {
    // Catches: a FormData body written as "[object FormData]"; a proxy setting silently bypassed.
    const sent: string[] = [];
    const fallback = (async (input: RequestInfo | URL) => {
      sent.push(String(input));
      return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const api = await serve((_req, res) => ok(res, { ok: true }));
    const transport = createSlackTransport({ fallback });
    await transport(`${api.url}files.upload`, { method: 'POST', body: new FormData() });
    await transport(`${api.url}auth.test`);
    await createSlackTransport({ fallback, env: { NODE_USE_ENV_PROXY: '1' } })(`${api.url}auth.test`, { method: 'POST', body: 'a=1' });
    await transport(`${api.url}auth.test`, { method: 'POST', body: 'a=1' });
    expect(sent).toEqual([`${api.url}files.upload`, `${api.url}auth.test`, `${api.url}auth.test`]);
    expect(api.seen.map((s) => s.body)).toEqual(['a=1']);
  });
});
