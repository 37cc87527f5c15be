/**
 * A ticket desk on loopback: the outside system a bot's `ctx.step` files a
 * ticket in (the demo turn's AUTOHUB_DEMO_TICKET_URL). Not a stand-in for
 * Slack: it follows no Slack page. It honours an `Idempotency-Key` header as
 * Stripe's API does (https://docs.stripe.com/api/idempotent_requests, "Stripe
 * saves the status code and body of the first request made with a given
 * idempotency key ... Retries with the same key return the saved response"):
 * a request under a key it has filed a ticket for files nothing and gets
 * that ticket back; a body it refused (400) saves nothing, as Stripe saves
 * nothing for a request that fails validation. Left out, as the drill needs
 * neither: Stripe's 24-hour pruning of keys and its check that a retry's
 * parameters match the first request's. The drill counts both: the tickets filed (a turn's side
 * effect, once each), and the requests a key made no-ops (`repeats`: the run
 * the step's fence cannot stop, a copy frozen between its check and its
 * request; a broken fence shows as many).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FiledTicket {
  eventId: string;
  /** The copy that filed it. */
  by: string;
  at: number;
}

export interface TicketDesk {
  url: string;
  readonly filed: readonly FiledTicket[];
  /** Requests under a key already filed: answered with that ticket, nothing filed. */
  readonly repeats: readonly FiledTicket[];
  close(): Promise<void>;
}

export async function startTicketDesk(): Promise<TicketDesk> {
  const filed: FiledTicket[] = [];
  const repeats: FiledTicket[] = [];
  const byKey = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      try {
        const ticket = JSON.parse(body) as { eventId?: unknown; by?: unknown };
        if (typeof ticket.eventId !== 'string' || typeof ticket.by !== 'string') throw new Error('eventId and by must be strings');
        const key = req.headers['idempotency-key'];
        const known = typeof key === 'string' ? byKey.get(key) : undefined;
        const entry = { eventId: ticket.eventId, by: ticket.by, at: Date.now() };
        if (known) repeats.push(entry);
        else filed.push(entry);
        const id = known ?? `TCK-${filed.length}`;
        if (typeof key === 'string' && !known) byKey.set(key, id);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id }));
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tickets`,
    filed,
    repeats,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
