/**
 * Deliveries the edge kept while it could not reach a copy, though both
 * copies stayed up and saw each other (issue 43, break 6). Before, the
 * inbox was drained at start, when the peer watch saw the other copy return,
 * or at the hourly look: a mention kept while the edge's legs failed for a few
 * seconds waited up to an hour. Now the edge marks the next delivery a copy
 * accepts (INBOX_HEADER), and that copy drains at once: no store command on
 * the normal path, on either side.
 */
import { describe, expect, it } from 'vitest';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { createEdgeRouter, parseEdgeSettings } from '../../lib/edge/index.js';
import { createEdgeKeeper, parseInboxSettings } from '../../lib/inbox/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { INBOX_HEADER } from '../../lib/synthetic/index.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopiesPerTest, useFakeWebApi } from '../support/fixtures.js';
import { CLOSED_URL } from '../support/fake-copy.js';
import { useRedisBridge } from '../support/redis-fixture.js';

describe('the edge tells the next copy it reaches that its inbox holds deliveries', () => {
  const redis = useRedisBridge();
  const api = useFakeWebApi();
  const copies = useCopiesPerTest({ api, redis });

  it('a mention kept while the legs failed is answered when the next delivery reaches a copy, not at the hourly look', async () => {
    const hub = await copies.start('hub');
    // The hourly look has just been made (at an empty inbox): only the edge's word can bring a drain in this test.
    hub.inbox!.look();
    await hub.inbox!.drain('settled');
    const env = {
      HUB_URL: hub.url,
      CLOUD_URL: CLOSED_URL,
      SLACK_SIGNING_SECRET: SECRET,
      UPSTASH_REDIS_REST_URL: redis.bridge.url,
      UPSTASH_REDIS_REST_TOKEN: redis.bridge.token,
    };
    // The tunnel to the hub fails for a while (the copies themselves stay up, and see each other).
    let cut = true;
    const forwarded: Array<string | null> = [];
    const edge = createEdgeRouter({
      settings: parseEdgeSettings(env),
      inbox: createEdgeKeeper({ settings: parseInboxSettings(env)!, signingSecret: SECRET }),
      fetch: async (input, init) => {
        if (String(input).startsWith(hub.url) && cut) throw new TypeError('fetch failed');
        if (String(input) === `${hub.url}/slack/events`) forwarded.push(new Headers(init?.headers).get(INBOX_HEADER));
        return fetch(input, init);
      },
    });
    const send = async (eventId: string, ts: string) => {
      const body = JSON.stringify(mentionEnvelope({ eventId, ts }));
      return edge.handle(
        new Request('https://edge.example.com/slack/events', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(await signedHeaders(SECRET, body, Date.now())) },
          body,
        }),
      );
    };
    const kept = await send('Ev-kept-while-cut', '1700000700.000700');
    expect(kept.headers.get('x-autohub-route')).toBe('inbox');
    cut = false;
    const next = await send('Ev-after-the-cut', '1700000701.000701');
    expect(next.headers.get('x-autohub-route')).toBe('hub');
    await eventually(() => repliesTo(api, 'Ev-kept-while-cut').length > 0, 'the kept mention answered');
    expect(hub.lines.filter((l) => l.event === 'inbox.drain').map((l) => l.reason)).toEqual(['edge kept']);
    // Told once: the delivery after that one carries no mark.
    await send('Ev-later', '1700000702.000702');
    expect(forwarded).toEqual(['kept', null]);
    await eventually(() => repliesTo(api, 'Ev-after-the-cut').length > 0 && repliesTo(api, 'Ev-later').length > 0, 'both answered');
    expect(repliesTo(api, 'Ev-kept-while-cut')).toHaveLength(1);
  });
});
