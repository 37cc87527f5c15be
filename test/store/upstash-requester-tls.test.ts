/**
 * The store's transport over https, as Upstash serves it: the certificate is
 * checked against the name in the URL (a store whose certificate does not
 * carry that name is refused, never spoken to), one connection carries the
 * commands that follow, and a new connection resumes the last TLS session.
 * A private CA made here with openssl is trusted for the test only
 * (tls.setDefaultCACertificates, Node 22.15 and later).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequester } from '../../lib/store/upstash-requester.js';

let dir: string;
let key: Buffer;
let cert: Buffer;
const defaults = tls.getCACertificates('default');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'autohub-tls-'));
  // A certificate for the name "localhost" only (no IP address in it), signed by itself: its own CA.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  key = readFileSync(join(dir, 'key.pem'));
  cert = readFileSync(join(dir, 'cert.pem'));
  tls.setDefaultCACertificates([...defaults, cert.toString()]);
});

afterAll(() => {
  tls.setDefaultCACertificates(defaults);
  rmSync(dir, { recursive: true, force: true });
});

/** An https store that answers every command with `{"result":"PONG"}`; counts its TLS connections and the resumed ones. */
async function store(close = false): Promise<{ port: number; connections: number; resumed: number; server: Server }> {
  const seen = { connections: 0, resumed: 0 };
  const server = createServer({ key, cert }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', ...(close ? { connection: 'close' } : {}) }).end('{"result":"PONG"}'));
  });
  server.on('secureConnection', (socket: tls.TLSSocket) => {
    seen.connections += 1;
    if (socket.isSessionReused()) seen.resumed += 1;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(seen, { port, server }) as typeof seen & { port: number; server: Server };
}

const closeAll = (server: Server) =>
  new Promise((r) => {
    server.closeAllConnections();
    server.close(r);
  });

describe('the store transport over https', () => {
  it('speaks to a store whose certificate carries the URL’s name, and keeps one connection for the commands that follow', async () => {
    const s = await store();
    const r = httpRequester({ url: `https://localhost:${s.port}`, token: 'tok', attemptMs: 2000 });
    for (let i = 0; i < 3; i++) expect(await r.request({ body: ['ping'] })).toEqual({ result: 'PONG' });
    expect(s.connections).toBe(1);
    await closeAll(s.server);
  });

  it('refuses a store whose certificate does not carry the name it was reached by, and sends it nothing', async () => {
    const s = await store();
    let requests = 0;
    s.server.on('request', () => (requests += 1));
    // The certificate names "localhost" only: reached as 127.0.0.1, it is not the store's.
    const r = httpRequester({ url: `https://127.0.0.1:${s.port}`, token: 'tok', attemptMs: 2000 });
    await expect(r.request({ body: ['ping'] })).rejects.toThrow();
    expect(requests).toBe(0);
    await closeAll(s.server);
  });

  it('a new connection resumes the last TLS session instead of a full handshake', async () => {
    // The store closes every connection after its answer, so each command needs a new one.
    const s = await store(true);
    const r = httpRequester({ url: `https://localhost:${s.port}`, token: 'tok', attemptMs: 2000 });
    for (let i = 0; i < 3; i++) expect(await r.request({ body: ['ping'] })).toEqual({ result: 'PONG' });
    expect(s.connections).toBe(3);
    expect(s.resumed).toBe(2);
    await closeAll(s.server);
  });
});
