/**
 * A ticket desk on loopback: the outside system a bot's `ctx.step` files a
 * ticket in (the demo turn's AUTOHUB_DEMO_TICKET_URL). Nothing but the step
 * fences it, so the drill counts how often each turn's side effect really
 * ran. Not a stand-in for Slack: it follows no Slack page.
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
  close(): Promise<void>;
}

export async function startTicketDesk(): Promise<TicketDesk> {
  const filed: FiledTicket[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      try {
        const ticket = JSON.parse(body) as { eventId?: unknown; by?: unknown };
        if (typeof ticket.eventId !== 'string' || typeof ticket.by !== 'string') throw new Error('eventId and by must be strings');
        filed.push({ eventId: ticket.eventId, by: ticket.by, at: Date.now() });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `TCK-${filed.length}` }));
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tickets`,
    filed,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
