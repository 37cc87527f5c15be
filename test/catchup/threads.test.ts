/**
 * The catch-up sweep read conversations.history alone, which lists
 * top-level messages only, so after a total outage a mention inside a thread,
 * or a follow-up in the bot's own DM thread, was never answered (2 of 4
 * missed); and its windows were on the copy's own clock, so a copy 3 minutes
 * off found none of the missed mentions. Real copies, real Bolt, the real
 * WebClient, a real Redis behind the Upstash bridge, the fake Web API
 * serving Slack's history and threads. Slack's retry window is compressed
 * to 1 s; the outage is the time until the new copy's next look finds the
 * silence longer than that (no fixed sleep).
 */
import { describe, expect, it } from 'vitest';
import { LATE_NOTE } from '../../app/listeners/conversation.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, quiescent, repliesTo, SECRET, type RunningCopy } from '../support/copies.js';
import { useCopiesPerTest, useFakeWebApiPerTest } from '../support/fixtures.js';

const ENV = { AUTOHUB_CATCHUP_RETRY_WINDOW_MS: '1000', AUTOHUB_CATCHUP_EVERY_MS: '1000', AUTOHUB_CATCHUP_PACE_MS: '0', AUTOHUB_REAPER_MS: '300' };
const BOT = '<@UAUTOHUB>';

describe('catching up on mentions in threads, on one clock', () => {
  const fx = useRedisBridge();
  // A sweep reads every conversation: each test gets a Slack of its own.
  const api = useFakeWebApiPerTest();
  const { start, stopAll } = useCopiesPerTest({ api, redis: fx, env: ENV });
  let n = 0;

  /** A Slack ts `agoMs` before now, unique in the run. */
  const tsAgo = (agoMs: number) => ((Date.now() - agoMs) / 1000 + ++n / 1e6).toFixed(6);
  /** A message Slack holds, its deliveries all lost. */
  const held = (channel: string, text: string, o: { threadTs?: string; im?: boolean; user?: string; agoMs?: number } = {}) => {
    const ts = tsAgo(o.agoMs ?? 0);
    api.addMessage(channel, { ts, user: o.user ?? 'U0PERSON', text, ...(o.im ? { im: true } : {}), ...(o.threadTs ? { thread_ts: o.threadTs } : {}) });
    return ts;
  };
  /** A message answered live by a hub, which then stops: the store knows when a copy last served. */
  const answeredLive = async (channel: string, o: { threadTs?: string; im?: boolean; agoMs?: number } = {}) => {
    const hub = await start('hub');
    const ts = held(channel, o.im ? 'hello' : `${BOT} hello`, o);
    const eventId = `Ev-live-${n}`;
    const envelope = mentionEnvelope({
      eventId,
      ts,
      channel,
      ...(o.threadTs ? { threadTs: o.threadTs } : {}),
      ...(o.im ? { type: 'message' as const, channelType: 'im' as const, text: 'hello' } : {}),
    });
    await deliver(hub.eventsUrl, envelope, { signingSecret: SECRET });
    await eventually(() => repliesTo(api, eventId).length === 1, 'the live reply');
    await quiescent([hub]);
    await stopAll();
    return { ts, eventId };
  };
  const caughtUp = (channel: string, ts: string) => repliesTo(api, `Ev-catchup-${channel}-${ts}`);
  const swept = (copy: RunningCopy) => copy.lines.find((l) => l.event === 'catchup.swept');

  it("after an outage, a top-level mention, a DM, a mention in a thread people started and a follow-up in the bot's own DM thread are each answered once, late, in their thread", async () => {
    // Both threads began ten minutes ago, before the window: only their replies are in it.
    const peoples = held('C0THR1', 'lunch anyone?', { user: 'U0OTHER', agoMs: 600_000 });
    const earlierDm = await answeredLive('D0THR1', { im: true, agoMs: 600_000 });
    const top = held('C0THR1', `${BOT} are you there?`);
    const dm = held('D0THR1', 'are you there?', { im: true });
    const inThread = held('C0THR1', `${BOT} what do you think?`, { threadTs: peoples });
    const followUp = held('D0THR1', 'and one more thing', { threadTs: earlierDm.ts, im: true });

    const cloud = await start('cloud');
    const expected: Array<[string, string, string]> = [
      ['C0THR1', top, top],
      ['D0THR1', dm, dm],
      ['C0THR1', inThread, peoples],
      ['D0THR1', followUp, earlierDm.ts],
    ];
    await eventually(() => expected.every(([c, ts]) => caughtUp(c, ts).length >= 1), 'the four late replies', 10_000);
    await eventually(() => swept(cloud) !== undefined, 'the sweep to end');
    await quiescent([cloud]);
    for (const [channel, ts, thread] of expected) {
      const replies = caughtUp(channel, ts);
      expect(replies, `${channel} ${ts}`).toHaveLength(1);
      expect(replies[0]!.params.thread_ts).toBe(thread);
      expect(replies[0]!.params.text).toContain(LATE_NOTE);
    }
    // The DM answered before the outage is not answered again.
    expect(repliesTo(api, earlierDm.eventId)).toHaveLength(1);
    expect(caughtUp('D0THR1', earlierDm.ts)).toHaveLength(0);
    expect(swept(cloud)).toMatchObject({ found: 4, answered: 4, threads: 2 });
  });

  it("in a channel, a follow-up in the bot's own thread is answered when it mentions the bot, as a live delivery would be, and not when it does not", async () => {
    const mention = await answeredLive('C0THR2', { agoMs: 600_000 });
    const asked = held('C0THR2', `${BOT} and tomorrow?`, { threadTs: mention.ts });
    const aside = held('C0THR2', 'thanks, that helps', { threadTs: mention.ts });

    const cloud = await start('cloud');
    await eventually(() => caughtUp('C0THR2', asked).length === 1, 'the late reply to the mention', 10_000);
    await eventually(() => swept(cloud) !== undefined, 'the sweep to end');
    await quiescent([cloud]);
    expect(caughtUp('C0THR2', asked)[0]!.params.thread_ts).toBe(mention.ts);
    expect(caughtUp('C0THR2', aside)).toHaveLength(0);
    expect(repliesTo(api, mention.eventId)).toHaveLength(1);
    expect(swept(cloud)).toMatchObject({ found: 1, answered: 1, threads: 1 });
  });

  it('a mention in a thread answered live (its claim kept) is not answered again; the one missed beside it is answered once', async () => {
    const peoples = held('C0THR3', 'release plan', { user: 'U0OTHER', agoMs: 600_000 });
    const before = await answeredLive('C0THR3', { threadTs: peoples });
    const missed = held('C0THR3', `${BOT} and the date?`, { threadTs: peoples });

    const cloud = await start('cloud');
    await eventually(() => caughtUp('C0THR3', missed).length === 1, 'the late reply', 10_000);
    await eventually(() => swept(cloud) !== undefined, 'the sweep to end');
    await quiescent([cloud]);
    expect(caughtUp('C0THR3', missed)).toHaveLength(1);
    expect(repliesTo(api, before.eventId)).toHaveLength(1);
    expect(caughtUp('C0THR3', before.ts)).toHaveLength(0);
    expect(swept(cloud)).toMatchObject({ found: 2, answered: 1 });
  });

  for (const [how, skewMs] of [
    ['ahead of', 180_000],
    ['behind', -180_000],
  ] as const) {
    it(`a copy whose clock is 3 minutes ${how} Slack's and the store's finds every missed mention`, async () => {
      const peoples = held('C0SKEW', 'standup notes', { user: 'U0OTHER', agoMs: 600_000 });
      await answeredLive('C0SKEW');
      const top = held('C0SKEW', `${BOT} anyone?`);
      const inThread = held('C0SKEW', `${BOT} thoughts?`, { threadTs: peoples });

      const cloud = await start('cloud', { now: () => Date.now() + skewMs });
      await eventually(() => caughtUp('C0SKEW', top).length === 1 && caughtUp('C0SKEW', inThread).length === 1, 'both late replies', 10_000);
      await eventually(() => swept(cloud) !== undefined, 'the sweep to end');
      await quiescent([cloud]);
      expect(caughtUp('C0SKEW', top)).toHaveLength(1);
      expect(caughtUp('C0SKEW', inThread)).toHaveLength(1);
    });
  }
});
