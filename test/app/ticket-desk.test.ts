/**
 * The drill's ticket desk (drill/sim/ticket-desk.ts) honours an
 * Idempotency-Key as Stripe's API does: `frozen-step`'s verdict counts the
 * tickets it filed, so a desk that filed one per request would fail the
 * scenario for a step run the key made harmless, and one that ignored the
 * key's absence would hide a step run twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTicketDesk, type TicketDesk } from '../../drill/sim/ticket-desk.js';

let desk: TicketDesk | undefined;
afterEach(async () => {
  await desk?.close();
  desk = undefined;
});

const file = async (d: TicketDesk, eventId: string, by: string, key?: string) => {
  const res = await fetch(d.url, { method: 'POST', headers: key ? { 'idempotency-key': key } : {}, body: JSON.stringify({ eventId, by }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
};

describe("the drill's ticket desk", () => {
  it('a second request under a key it filed files nothing and gets the first ticket back, counted as a repeat', async () => {
    desk = await startTicketDesk();
    const first = await file(desk, 'Ev1', 'drill-cloud', 'ah_one');
    const again = await file(desk, 'Ev1', 'drill-hub', 'ah_one');
    expect(again).toBe(first);
    expect(desk.filed.map((t) => t.by)).toEqual(['drill-cloud']);
    expect(desk.repeats.map((t) => t.by)).toEqual(['drill-hub']);
  });

  it('another key is another ticket, and a request with no key is always filed (a step run twice without one is seen)', async () => {
    desk = await startTicketDesk();
    await file(desk, 'Ev1', 'drill-hub', 'ah_one');
    await file(desk, 'Ev2', 'drill-hub', 'ah_two');
    await file(desk, 'Ev3', 'drill-hub');
    await file(desk, 'Ev3', 'drill-cloud');
    expect(desk.filed.map((t) => t.eventId)).toEqual(['Ev1', 'Ev2', 'Ev3', 'Ev3']);
    expect(desk.repeats).toEqual([]);
  });
});
