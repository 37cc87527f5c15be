import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, quiescent, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { virtualTime } from '../support/virtual-time.js';

describe("a real Bolt listener's client goes through the rate-limit fetch", () => {
  const time = virtualTime();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, now: time.now, sleep: time.sleep });

  it('a 30 s window on the reply is waited out (on the injected clock) and the reply posts exactly once', async () => {
    api.script('chat.startStream', { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '30' } });
    const response = await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-rl', ts: '1700000000.000500' }), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    await eventually(() => api.posts().length === 1, 'the reply after the window');
    await quiescent([hub]);
    expect(api.posts()).toHaveLength(1);
    expect(time.slept).toEqual([30_000]);
    expect(hub.lines.find((l) => l.event === 'ratelimit.refusal')).toMatchObject({
      method: 'chat.startStream',
      status: 429,
      waited: 30,
      retryAfter: '30',
      slackError: 'ratelimited',
    });
  });
});
