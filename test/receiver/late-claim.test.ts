/**
 * A claim that timed out (the store paused: fail-open at
 * 950 ms) but landed after all. Its turn runs here without a
 * lease; nobody renews the lease that landed, so it lapses while the turn is
 * still running, and this copy's own reaper takes it. Before, the reaper ran
 * the turn a second time beside the first: two replies.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { SHORT_LEASE } from '../support/child-app.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, repliesTo, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('a claim that timed out but landed', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  // A turn longer than the lease, so the landed lease lapses while it runs.
  const copy = useCopy({ role: 'hub', api, redis: fx, env: { ...SHORT_LEASE, AUTOHUB_DEMO_THINK_MS: '3000' } });

  it('its copy confirms the claim once the store answers and runs on under the lease that landed, never runs it twice: one reply', async () => {
    // A copy that has served before: Redis knows the claim script by its SHA (a first EVALSHA would
    // answer NOSCRIPT, and the script sent whole afterwards would come after the claim's deadline).
    await deliver(copy.eventsUrl, mentionEnvelope({ eventId: 'Ev-warm', ts: '1700014000.000000' }), { signingSecret: SECRET });
    await turnOver(copy.store, 'Ev-warm', 15_000);
    // A latency spike: every store request answers after 1 s, past the claim's 950 ms, but still lands.
    fx.bridge.delayMs = 1000;
    let ack: Response;
    try {
      ack = await deliver(copy.eventsUrl, mentionEnvelope({ eventId: 'Ev-late-claim', ts: '1700014000.000001' }), { signingSecret: SECRET });
    } finally {
      fx.bridge.delayMs = 0;
    }
    expect(ack.headers.get('x-autohub-claim')).toBe('fail-open');
    // The landed lease lapses unrenewed and is taken (a takeover after it would have to wait out the 3 s turn too).
    await eventually(
      () => copy.reaper.looks > 0 && copy.lines.some((l) => l.event === 'turn.replied' && l.eventId === 'Ev-late-claim'),
      'the turn to reply',
      10_000,
    );
    await turnOver(copy.store, 'Ev-late-claim', 15_000);
    expect(repliesTo(api, 'Ev-late-claim')).toHaveLength(1);
    // The copy asked the store once it answered again, and ran on under the lease that landed.
    expect(copy.lines.some((l) => l.event === 'claim.confirmed' && l.eventId === 'Ev-late-claim')).toBe(true);
    expect(copy.lines.filter((l) => l.event === 'turn.replied' && l.eventId === 'Ev-late-claim')).toHaveLength(1);
  });
});
