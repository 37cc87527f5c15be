/**
 * "@bot hi" typed in a DM arrives as two events, `app_mention` (no
 * channel_type) and `message` with channel_type im, under two event ids, in
 * either order (platform-facts; shomali11/slacker#83). Before, the two alias
 * keys were per event type: both claimed, both answered.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, quiescent, repliesTo, SECRET, type RunningCopy } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('one DM @mention, two events: one turn', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx });
  const cloud = useCopy({ role: 'cloud', api, redis: fx });
  let n = 0;

  /** The pair Slack sends for one message: same channel and ts, two event ids, two event types. */
  function pair(): { mention: Record<string, unknown>; im: Record<string, unknown>; ids: [string, string] } {
    const ts = `1700013000.${String(++n).padStart(6, '0')}`;
    const ids: [string, string] = [`Ev-pair-${n}-m`, `Ev-pair-${n}-im`];
    return {
      mention: mentionEnvelope({ eventId: ids[0], ts, channel: 'D0PAIR', text: '<@UAUTOHUB> hi' }),
      im: mentionEnvelope({ eventId: ids[1], ts, channel: 'D0PAIR', text: '<@UAUTOHUB> hi', type: 'message', channelType: 'im' }),
      ids,
    };
  }
  const answered = (ids: [string, string]) => repliesTo(api, ids[0]).length + repliesTo(api, ids[1]).length;

  const cases: Array<[string, (p: ReturnType<typeof pair>) => Array<[RunningCopy, Record<string, unknown>]>]> = [
    [
      'app_mention first, both to one copy',
      (p) => [
        [hub, p.mention],
        [hub, p.im],
      ],
    ],
    [
      'message.im first, both to one copy',
      (p) => [
        [hub, p.im],
        [hub, p.mention],
      ],
    ],
    [
      'one to each copy',
      (p) => [
        [hub, p.mention],
        [cloud, p.im],
      ],
    ],
  ];
  for (const [name, order] of cases) {
    it(`${name}: exactly one reply`, async () => {
      const p = pair();
      const acks = await Promise.all(order(p).map(([copy, envelope]) => deliver(copy.eventsUrl, envelope, { signingSecret: SECRET })));
      expect(acks.map((a) => a.status)).toEqual([200, 200]);
      expect(acks.map((a) => a.headers.get('x-autohub-claim')).sort()).toEqual(['claimed', 'duplicate']);
      await eventually(() => answered(p.ids) > 0, 'the reply');
      await quiescent([hub, cloud]);
      expect(answered(p.ids)).toBe(1);
    });
  }

  it("a Slack retry of the pair's second event is a duplicate too", async () => {
    const p = pair();
    await deliver(hub.eventsUrl, p.mention, { signingSecret: SECRET });
    await deliver(cloud.eventsUrl, p.im, { signingSecret: SECRET });
    const retry = await deliver(cloud.eventsUrl, p.im, { signingSecret: SECRET, retryNum: 1, retryReason: 'http_timeout' });
    expect(retry.headers.get('x-autohub-claim')).toBe('duplicate');
    await eventually(() => answered(p.ids) > 0, 'the reply');
    await quiescent([hub, cloud]);
    expect(answered(p.ids)).toBe(1);
  });
});
