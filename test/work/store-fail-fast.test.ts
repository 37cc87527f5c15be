/**
 * Fail open, fail fast (issue 43, break 7): a store that hangs after the
 * copy has served. The claim fails open at its fuse and the turn runs; before,
 * its first write then waited for the conversation's order through three
 * unanswered looks (each a store attempt and a pause: the reply came about
 * 9 s after the ack on a hung store, 2 s on one answering 500). Now a turn
 * whose claim failed open waits for one look at most.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, repliesTo, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

describe('a store that hangs: a failed-open turn asks the conversation order once', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, redis: fx });

  it('replies after one unanswered look at its conversation (before: three looks, seconds apart)', async () => {
    await deliver(copy.eventsUrl, mentionEnvelope({ eventId: 'Ev-ff-warm', ts: '1700016000.000000' }), { signingSecret: SECRET });
    await turnOver(copy.store, 'Ev-ff-warm', 15_000);
    fx.bridge.mode = 'hang';
    try {
      const ack = await deliver(copy.eventsUrl, mentionEnvelope({ eventId: 'Ev-ff-hung', ts: '1700016000.000001' }), { signingSecret: SECRET });
      expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
      await eventually(() => repliesTo(api, 'Ev-ff-hung').length > 0, 'the reply', 20_000);
    } finally {
      fx.bridge.mode = 'normal';
    }
    const unsure = copy.lines.filter((l) => l.event === 'conversation.unsure' && l.eventId === 'Ev-ff-hung');
    expect(unsure).toHaveLength(1);
    expect(unsure[0]).toMatchObject({ looks: 1 });
    expect(repliesTo(api, 'Ev-ff-hung')).toHaveLength(1);
  });
});
