/**
 * A TCP proxy that puts a network's distance in front of a loopback server:
 * every chunk, either way, is passed on `roundTripMs / 2` after it arrived, so
 * a request and its answer on a kept-alive connection take one round trip more
 * than they would direct. The turn bench puts one in front of the store's REST
 * bridge (Upstash from a Mac: about 40 ms) and one in front of the fake Web API
 * (Slack: about 120 ms). Connecting is not delayed (a kept-alive client pays
 * its handshakes once; the bench warms every server up first).
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface DelayProxy {
  port: number;
  close(): Promise<void>;
}

export interface DelayProxyOptions {
  /** The server behind the proxy, on loopback. */
  targetPort: number;
  /** The round trip added to every exchange, half each way. */
  roundTripMs: number;
  /** Told when a chunk that starts an HTTP POST reaches the target (a request, for round-trip counts). */
  onRequest?: () => void;
}

export async function startDelayProxy(options: DelayProxyOptions): Promise<DelayProxy> {
  const half = options.roundTripMs / 2;
  const open = new Set<Socket>();
  // Timers of one duration fire in the order they were set, so each direction keeps its bytes in order.
  const later = (from: Socket, to: Socket, onChunk?: (chunk: Buffer) => void) => {
    from.on('data', (chunk: Buffer) =>
      setTimeout(() => {
        onChunk?.(chunk);
        if (!to.destroyed) to.write(chunk);
      }, half),
    );
    from.on('end', () => setTimeout(() => to.end(), half));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), half));
  };
  const server = createServer((client) => {
    const upstream = connect(options.targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      open.add(s);
      s.on('close', () => open.delete(s));
    }
    const onRequest = options.onRequest;
    later(client, upstream, onRequest ? (chunk) => chunk.subarray(0, 5).toString('latin1') === 'POST ' && onRequest() : undefined);
    later(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
