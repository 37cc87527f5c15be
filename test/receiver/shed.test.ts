import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { spawnHub } from '../support/child-app.js';
import { eventually, SECRET } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';

describe('a hub with a backlog hands new deliveries back to the edge (AUTOHUB_SHED_AT)', () => {
  const api = useFakeWebApi();

  it('with 2 turns waiting, the next delivery is refused 503 busy before any claim, and is answered once sent again', async () => {
    // One turn at a time, its first write held 2 s: the second and third wait, the fourth is handed back.
    api.holdPosts(2000);
    const hub = await spawnHub({ webApiUrl: api.url, secret: SECRET }, { AUTOHUB_MAX_TURNS: '1', AUTOHUB_SHED_AT: '2' });
    const url = `${hub.url}/slack/events`;
    const mention = (i: number) => mentionEnvelope({ eventId: `Ev-shed-${i}`, ts: `1700000100.00000${i}` });
    try {
      expect((await deliver(url, mention(1), { signingSecret: SECRET })).status).toBe(200);
      await eventually(() => api.held > 0, 'the first turn to be writing its reply');
      for (const i of [2, 3]) expect((await deliver(url, mention(i), { signingSecret: SECRET })).status).toBe(200);

      const shed = await deliver(url, mention(4), { signingSecret: SECRET });
      expect(shed.status).toBe(503);
      expect(shed.headers.get('x-autohub-busy')).toBe('2');
      expect(shed.headers.get('x-autohub-claim')).toBe('none');
      await eventually(() => hub.output().includes('"delivery.shed"'), 'the hand-back to be logged');

      await eventually(() => api.posts().length === 3, 'the three accepted turns to be answered', 20_000);
      api.holdPosts(0);
      // Nothing was claimed for it: sent again (as the edge would, to whichever copy), it is a new turn, answered once.
      const again = await deliver(url, mention(4), { signingSecret: SECRET, retryNum: 1 });
      expect(again.status).toBe(200);
      expect(again.headers.get('x-autohub-claim')).toBe('claimed');
      await eventually(() => api.posts().length === 4, 'the handed-back mention to be answered');
      expect(api.posts().filter((p) => p.params.thread_ts === '1700000100.000004')).toHaveLength(1);
    } finally {
      api.holdPosts(0);
      hub.child.kill('SIGKILL');
    }
  });
});
