import { describe, expect, it } from 'vitest';
import { mentionEnvelope } from '../../drill/sim/slack-events.js';
import { slowAuth, useTakeoverRig } from '../support/takeover-rig.js';
import { eventually, repliesTo as repliesOf, turnOver } from '../support/copies.js';

describe('no turn is lost when its owner dies mid-turn', () => {
  const { fx, api, cloud, ...rig } = useTakeoverRig();

  const repliesTo = (eventId: string) => repliesOf(api, eventId);
  const hubMidTurn = (eventId: string, authDelayMs: number) => rig.hubMidTurn({ eventId, method: 'auth.test', answer: slowAuth(authDelayMs) });

  it('the hub is killed (SIGKILL) right after claiming: exactly one reply, from the cloud copy (before: the acked turn died with its copy)', async () => {
    const hub = await hubMidTurn('Ev-killed', 60_000);
    hub.child.kill('SIGKILL');
    await hub.exited;
    await eventually(() => repliesTo('Ev-killed').length > 0, 'the cloud to take the turn over', 10_000);
    await turnOver(cloud.store, 'Ev-killed');
    const replies = repliesTo('Ev-killed');
    expect(replies).toHaveLength(1);
    expect(replies[0]!.params.text).toMatch(/the cloud copy/);
    expect(cloud.lines.some((l) => l.event === 'lease.takeover')).toBe(true);
  });

  it('the hub is frozen (SIGSTOP) past its lease and woken: exactly one reply, and the woken owner does not post', async () => {
    const hub = await hubMidTurn('Ev-frozen', 3_000);
    hub.child.kill('SIGSTOP');
    await eventually(() => repliesTo('Ev-frozen').length > 0, 'the cloud to take the turn over', 10_000);
    hub.child.kill('SIGCONT');
    const output = hub.output;
    await eventually(() => /"turn.abandoned"/.test(output()), 'the woken hub to stand down before posting', 10_000);
    await turnOver(cloud.store, 'Ev-frozen');
    expect(repliesTo('Ev-frozen')).toHaveLength(1);
    expect(repliesTo('Ev-frozen')[0]!.params.text).toMatch(/the cloud copy/);
    expect(output()).not.toContain('"turn.replied"');
  });

  it('Redis unreachable during a renewal: the owner stands down, and the turn is answered once when Redis is back', async () => {
    const hub = await hubMidTurn('Ev-redis-gone', 2_500);
    fx.redis.pause();
    // Resumed once a renewal has failed against the paused Redis (the hub says so).
    await eventually(() => /"lease.renew_failed"/.test(hub.output()), 'a renewal to fail while Redis is paused', 10_000);
    fx.redis.resume();
    await eventually(() => repliesTo('Ev-redis-gone').length > 0, 'a reply once Redis is back', 10_000);
    await turnOver(cloud.store, 'Ev-redis-gone');
    expect(repliesTo('Ev-redis-gone')).toHaveLength(1);
  });
});

describe('a taker-over whose dead owner had reached posting', () => {
  const { api, cloud } = useTakeoverRig();

  const repliesTo = (eventId: string) => repliesOf(api, eventId);

  async function deadOwnerAtPosting(eventId: string, ts: string, posted: boolean): Promise<void> {
    const { eventKey, messageKey } = await import('../../lib/store/index.js');
    const { WebClient } = await import('@slack/web-api');
    const body = JSON.stringify(mentionEnvelope({ eventId, ts, team: 'T0AUTOHUB', channel: 'C0GENERAL' }));
    const key = eventKey('T0AUTOHUB', eventId);
    const owner = { instance: 'hub-gone', role: 'hub' } as const;
    expect(await cloud.store.claim([key, messageKey('T0AUTOHUB', 'message', 'C0GENERAL', ts)], owner, { leaseMs: 1500, body })).toMatchObject({ token: 1 });
    expect(await cloud.store.commit(key, 1, 1500)).toBe('ok');
    if (posted) {
      await new WebClient('xoxb-test', { slackApiUrl: api.url }).chat.postMessage({
        channel: 'C0GENERAL',
        thread_ts: ts,
        text: 'answered by the hub before it died',
        metadata: { event_type: 'autohub_turn', event_payload: { event_id: eventId } },
      });
    }
  }

  it('finds the reply in the thread and does not post again', async () => {
    await deadOwnerAtPosting('Ev-posted', '1700000200.000100', true);
    await eventually(() => cloud.lines.some((l) => l.event === 'turn.already_replied' && l.eventId === 'Ev-posted'), 'the takeover', 10_000);
    await turnOver(cloud.store, 'Ev-posted');
    expect(repliesTo('Ev-posted')).toHaveLength(1);
    expect(api.calls.some((c) => c.method === 'conversations.replies' && c.params.include_all_metadata === 'true')).toBe(true);
  });

  it('finds no reply and posts it', async () => {
    await deadOwnerAtPosting('Ev-not-posted', '1700000200.000200', false);
    await eventually(() => repliesTo('Ev-not-posted').length > 0, 'the takeover reply', 10_000);
    await turnOver(cloud.store, 'Ev-not-posted');
    expect(repliesTo('Ev-not-posted')).toHaveLength(1);
    expect(repliesTo('Ev-not-posted')[0]!.params.text).toMatch(/the cloud copy/);
  });
});
