/** A "ticket" filed at the drill's desk (AUTOHUB_DEMO_TICKET_URL) in a ctx.step: a side effect outside Slack, counted by the drill once a turn. */
import type { TurnContext, TurnRequest } from '../../lib/turn/types.js';

export async function fileTicket(request: TurnRequest, ctx: TurnContext): Promise<string> {
  const url = process.env.AUTOHUB_DEMO_TICKET_URL;
  if (!url) return 'none';
  return ctx.step('ticket', async ({ idempotencyKey }) => {
    // The step's key, as the desk honours one (drill/sim/ticket-desk.ts): a second filing under it is a no-op, and counted.
    const filed = await fetch(url, {
      method: 'POST',
      headers: { 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ eventId: request.eventId, by: request.copy.instance }),
    });
    if (!filed.ok) throw new Error(`the ticket desk answered ${filed.status}`);
    return ((await filed.json()) as { id: string }).id;
  });
}
