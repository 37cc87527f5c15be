/**
 * A stand-in for the Cloudflare Tunnel in front of the hub: passes requests
 * through, or can be cut (530 with error 1033, as when cloudflared is down),
 * refuse (502, connector up but the app not answering), or slow the answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type TunnelMode = 'pass' | 'cut' | 'refuse' | 'slow';

export interface Tunnel {
  url: string;
  mode: TunnelMode;
  /** With 'slow': the request reaches the hub at once; its answer is held this long. */
  slowMs: number;
  /** Where requests go through to. */
  target: string;
  /** More targets, taken in turn with `target` (a round-robin balancer over replicas, as Railway's). A dead one answers 502. */
  extraTargets: string[];
  /** Answer the next N requests with 500, whatever the mode (a copy failing once). */
  fail500: number;
  close(): Promise<void>;
}

export async function startTunnel(target: string): Promise<Tunnel> {
  let next = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (tunnel.fail500 > 0) {
        tunnel.fail500 -= 1;
        res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
        return;
      }
      if (tunnel.mode === 'cut') {
        res.writeHead(530, { 'content-type': 'text/plain' }).end('error code: 1033');
        return;
      }
      if (tunnel.mode === 'refuse') {
        res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad gateway');
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'content-length' && name !== 'connection') headers.set(name, value);
      }
      const body = chunks.length ? new Uint8Array(Buffer.concat(chunks)) : undefined;
      const hold = tunnel.mode === 'slow' ? tunnel.slowMs : 0;
      const targets = [tunnel.target, ...tunnel.extraTargets];
      const to = targets[next++ % targets.length];
      fetch(`${to}${req.url ?? '/'}`, { method: req.method, headers, body })
        .then(async (upstream) => {
          const payload = Buffer.from(await upstream.arrayBuffer());
          const out: Record<string, string> = {};
          upstream.headers.forEach((v, k) => {
            if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive') out[k] = v;
          });
          setTimeout(() => {
            if (!res.destroyed) res.writeHead(upstream.status, out).end(payload);
          }, hold);
        })
        .catch(() => {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad gateway');
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const tunnel: Tunnel = {
    url: `http://127.0.0.1:${port}`,
    mode: 'pass',
    slowMs: 0,
    target,
    extraTargets: [],
    fail500: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return tunnel;
}
