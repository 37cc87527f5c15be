import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import type { TakeTurn } from '../../lib/bot/index.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

/** Every turn waits for the gate the test opens: the first one runs meanwhile, the ones behind it wait for its slot. */
const gate = { started: [] as string[], open: () => {}, opened: Promise.resolve() };
const closeGate = () => {
  gate.opened = new Promise<void>((resolve) => (gate.open = resolve));
};
const turn: TakeTurn = async (request) => {
  gate.started.push(request.eventId);
  await gate.opened;
  return `the answer to ${request.text}`;
};

describe('a hub with a backlog hands new deliveries back to the edge (AUTOHUB_SHED_AT)', () => {
  const api = useFakeWebApi();
  // One turn at a time: the second and third wait, the fourth is handed back.
  const hub = useCopy({ role: 'hub', api, turn, env: { AUTOHUB_MAX_TURNS: '1', AUTOHUB_SHED_AT: '2' } });

  it('with 2 turns waiting, the next delivery is refused 503 busy before any claim, and is answered once sent again', async () => {
    closeGate();
    const url = hub.eventsUrl;
    const mention = (i: number) => mentionEnvelope({ eventId: `Ev-shed-${i}`, ts: `1700000100.00000${i}` });
    try {
      expect((await deliver(url, mention(1), { signingSecret: SECRET })).status).toBe(200);
      await eventually(() => gate.started.length === 1, 'the first turn to be running');
      for (const i of [2, 3]) expect((await deliver(url, mention(i), { signingSecret: SECRET })).status).toBe(200);
      await eventually(() => hub.runner.queued === 2, 'two turns waiting for the slot');

      const shed = await deliver(url, mention(4), { signingSecret: SECRET });
      expect(shed.status).toBe(503);
      expect(shed.headers.get('x-autohub-busy')).toBe('2');
      expect(shed.headers.get('x-autohub-claim')).toBe('none');
      expect(hub.lines.some((l) => l.event === 'delivery.shed' && l.eventId === 'Ev-shed-4')).toBe(true);

      gate.open();
      await eventually(() => api.posts().length === 3, 'the three accepted turns to be answered', 20_000);
      // Nothing was claimed for it: sent again (as the edge would, to whichever copy), it is a new turn, answered once.
      const again = await deliver(url, mention(4), { signingSecret: SECRET, retryNum: 1 });
      expect(again.status).toBe(200);
      expect(again.headers.get('x-autohub-claim')).toBe('claimed');
      await eventually(() => api.posts().length === 4, 'the handed-back mention to be answered');
      expect(api.posts().filter((p) => p.params.thread_ts === '1700000100.000004')).toHaveLength(1);
      expect(gate.started).toEqual(['Ev-shed-1', 'Ev-shed-2', 'Ev-shed-3', 'Ev-shed-4']);
    } finally {
      gate.open();
    }
  });
});
