/** A loopback stand-in for a copy, for the edge's tests: it answers what it is told and records what it got. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCopy {
  url: string;
  /** Status for /slack/events; 'hang' never answers. */
  events: number | 'hang';
  /** Statuses for the next deliveries to /slack/events, before `events` applies again (a replica gone behind a balancer). */
  next: number[];
  /** Status for /slack/health. */
  health: number | 'hang';
  /** Extra delay before answering, ms. */
  delayMs: number;
  /** Headers added to its answers to /slack/events. */
  eventHeaders: Record<string, string>;
  /** The body of its answers to /slack/events (default: `{"copy":"<name>"}`). */
  eventBody: string | undefined;
  received: Array<{ path: string; method: string; headers: Record<string, string>; body: string }>;
  close(): Promise<void>;
}

export async function startFakeCopy(name: string): Promise<FakeCopy> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      copy.received.push({
        path,
        method: req.method ?? '',
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const status = path === '/slack/health' ? copy.health : (copy.next.shift() ?? copy.events);
      if (status === 'hang') return;
      setTimeout(() => {
        const events = path === '/slack/events';
        const body = status === 530 ? 'error code: 1033' : ((events ? copy.eventBody : undefined) ?? JSON.stringify({ copy: name }));
        const extra = events ? copy.eventHeaders : {};
        res.writeHead(status, { 'x-autohub-instance': name, 'content-type': 'text/plain', ...extra }).end(body);
      }, copy.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const copy: FakeCopy = {
    url: `http://127.0.0.1:${port}`,
    events: 200,
    next: [],
    health: 200,
    delayMs: 0,
    eventHeaders: {},
    eventBody: undefined,
    received: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return copy;
}

/** A port nothing listens on. */
export const CLOSED_URL = 'http://127.0.0.1:9';

/** Back to answering 200 at once, with nothing received: how a fresh copy starts. */
export function resetFakeCopy(copy: FakeCopy): void {
  copy.events = 200;
  copy.health = 200;
  copy.delayMs = 0;
  copy.eventHeaders = {};
  copy.eventBody = undefined;
  copy.next = [];
  copy.received.length = 0;
}

/** The edge's environment with both copies unreachable and the inbox on `bridge`: every delivery goes to the inbox. */
export function bothCopiesDownEnv(bridge: { url: string; token: string }, signingSecret: string): Record<string, string> {
  return {
    HUB_URL: CLOSED_URL,
    CLOUD_URL: CLOSED_URL,
    SLACK_SIGNING_SECRET: signingSecret,
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: bridge.token,
  };
}
