/**
 * Both copies down past Slack's last retry. The catch-up sweep reads
 * back what Slack gave up on and answers it once, late; what was answered
 * before is not answered again. Real copies, real Bolt, the real WebClient,
 * a fake Web API serving Slack's history with its paging, a real Redis.
 * Slack's retry window is compressed to 1 s here; a copy started after an
 * outage sweeps at its first look past it. Where a test needs the outage to
 * be over before it goes on, the store's mark of when a copy last served is
 * moved back instead of waiting it out: the silence is on the store's clock
 * (Redis TIME), which no test can inject.
 */
import { describe, expect, it } from 'vitest';
import { LATE_NOTE } from '../../app/listeners/conversation.js';
import { RespClient } from '../../drill/sim/resp-client.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { SERVED_KEY } from '../../lib/store/keys.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopiesPerTest, useFakeWebApi } from '../support/fixtures.js';

const ENV = { AUTOHUB_CATCHUP_RETRY_WINDOW_MS: '1000', AUTOHUB_CATCHUP_EVERY_MS: '1000', AUTOHUB_CATCHUP_PACE_MS: '0', AUTOHUB_REAPER_MS: '300' };
/** Longer than the retry window (1 s): a silence a sweep is due after. */
const OUTAGE_MS = 2000;

describe('catching up on the mentions Slack gave up on', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const { start, stopAll } = useCopiesPerTest({ api, redis: fx, env: ENV });
  let n = 0;

  const repliesIn = (channel: string, ts: string) => api.posts().filter((c) => c.params.channel === channel && c.params.thread_ts === ts);
  /**
   * No copy has served for `ms` on the store's clock, at once: the served mark
   * (Redis ms) moved `ms` back, as if the last claim had been then.
   */
  const silentFor = async (ms: number) => {
    const redis = await RespClient.open(fx.redis.port);
    try {
      const [seconds, micros] = (await redis.command(['TIME'])) as [string, string];
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      await redis.command(['SET', SERVED_KEY, String(now - ms), 'EX', '172800']);
    } finally {
      redis.close();
    }
  };
  /** A mention Slack holds, as if every delivery of it had failed; sent `agoMs` ago. */
  const sentDuringOutage = (channel: string, agoMs = 0) => {
    const ts = ((Date.now() - agoMs) / 1000 + ++n / 1e6).toFixed(6);
    api.addMessage(channel, { ts, user: 'U0PERSON', text: '<@UAUTOHUB> are you there?' });
    return ts;
  };
  /** One mention answered live, so the store knows when a copy last served. */
  const answeredLive = async (channel: string) => {
    const copy = await start('hub');
    const ts = (Date.now() / 1000 + ++n / 1e6).toFixed(6);
    api.addMessage(channel, { ts, user: 'U0PERSON', text: '<@UAUTOHUB> hello' });
    await deliver(copy.eventsUrl, mentionEnvelope({ eventId: `Ev-live-${n}`, ts, channel }), { signingSecret: SECRET });
    await eventually(() => repliesIn(channel, ts).length === 1, 'the live reply');
    await stopAll();
    return ts;
  };

  it('a mention sent while both copies were down is answered once, late, when a copy starts; one answered before is not answered again', async () => {
    const before = await answeredLive('C0CATCH1');
    const missed = sentDuringOutage('C0CATCH1');
    const copy = await start('cloud');
    await eventually(() => repliesIn('C0CATCH1', missed).length === 1, 'the late reply', 10_000);
    expect(repliesIn('C0CATCH1', missed)[0]!.params.text).toContain(LATE_NOTE);
    await eventually(() => copy.lines.some((l) => l.event === 'catchup.swept'), 'the sweep to end');
    expect(repliesIn('C0CATCH1', before)).toHaveLength(1);
    expect(repliesIn('C0CATCH1', missed)).toHaveLength(1);
    const swept = copy.lines.find((l) => l.event === 'catchup.swept')!;
    expect(swept).toMatchObject({ found: 2, answered: 1 });
  });

  it('an outage in the middle of steady traffic: the claim that ends the silence records it, and what Slack dropped in it is read back', async () => {
    const copy = await start('hub');
    // The sweep over a recorded gap forgets the gap once read back: seen here, it proves the claim recorded one.
    const gapsRead: string[] = [];
    const dropGap = copy.store.dropGap.bind(copy.store);
    copy.store.dropGap = async (raw) => {
      gapsRead.push(raw);
      return dropGap(raw);
    };
    const live = async (eventId: string) => {
      const ts = (Date.now() / 1000 + ++n / 1e6).toFixed(6);
      api.addMessage('C0CATCH5', { ts, user: 'U0PERSON', text: '<@UAUTOHUB> hi' });
      await deliver(copy.eventsUrl, mentionEnvelope({ eventId, ts, channel: 'C0CATCH5' }), { signingSecret: SECRET });
      return ts;
    };
    await live('Ev-gap-before');
    const missed = sentDuringOutage('C0CATCH5');
    // A silence longer than the retry window on the store's clock: the claim after it records the gap.
    await silentFor(OUTAGE_MS);
    // Traffic resumes: no silence is left to notice, but the first claim after the gap recorded it.
    const after = await live('Ev-gap-after');
    await eventually(() => repliesIn('C0CATCH5', missed).length === 1, 'the missed mention, caught up', 10_000);
    expect(repliesIn('C0CATCH5', missed)[0]!.params.text).toContain(LATE_NOTE);
    await eventually(() => repliesIn('C0CATCH5', after).length === 1, 'the live reply');
    await eventually(() => copy.reaper.looks >= 4, 'more looks');
    expect(repliesIn('C0CATCH5', missed)).toHaveLength(1);
    expect(repliesIn('C0CATCH5', after)).toHaveLength(1);
    expect(gapsRead.length).toBeGreaterThan(0);
  });

  it('two copies starting together answer it once', async () => {
    await answeredLive('C0CATCH2');
    const missed = sentDuringOutage('C0CATCH2');
    const [hub, cloud] = await Promise.all([start('hub'), start('cloud')]);
    await eventually(() => repliesIn('C0CATCH2', missed).length === 1, 'the late reply', 10_000);
    await eventually(() => [hub, cloud].some((c) => c.lines.some((l) => l.event === 'catchup.swept')), 'a sweep to end');
    await eventually(() => hub.reaper.looks >= 3 && cloud.reaper.looks >= 3, 'both copies to have looked again');
    expect(repliesIn('C0CATCH2', missed)).toHaveLength(1);
  });

  it("Slack's last retry racing the sweep: answered once", async () => {
    await answeredLive('C0CATCH3');
    // Sent in the outage and older than the sweep's lag (half the retry window), so the first sweep reads it too.
    const missed = sentDuringOutage('C0CATCH3', OUTAGE_MS / 2);
    // A silence on the store's clock, or the retry's claim ends no gap and nothing is swept.
    await silentFor(OUTAGE_MS);
    const copy = await start('hub');
    // The retry carries the original event id; the sweep claims under its own, and both under the message's key.
    const retry = await deliver(copy.eventsUrl, mentionEnvelope({ eventId: 'Ev-race', ts: missed, channel: 'C0CATCH3' }), {
      signingSecret: SECRET,
      retryNum: 3,
    });
    expect(retry.status).toBe(200);
    await eventually(() => copy.lines.some((l) => l.event === 'catchup.swept'), 'the sweep to end', 10_000);
    await eventually(() => repliesIn('C0CATCH3', missed).length >= 1, 'a reply');
    await eventually(() => copy.reaper.looks >= 3, 'another look');
    expect(repliesIn('C0CATCH3', missed)).toHaveLength(1);
  });

  it('with AUTOHUB_CATCHUP=off nothing is read back', async () => {
    await answeredLive('C0CATCH4');
    const missed = sentDuringOutage('C0CATCH4', OUTAGE_MS / 2);
    // A silence on the store's clock, so a sweep would be due at the first look were the catch-up on.
    await silentFor(OUTAGE_MS);
    const copy = await start('hub', { env: { AUTOHUB_CATCHUP: 'off' } });
    await eventually(() => copy.reaper.looks >= 3, 'three looks');
    expect(api.calls.some((c) => c.method === 'conversations.history' && c.params.channel === 'C0CATCH4')).toBe(false);
    expect(repliesIn('C0CATCH4', missed)).toHaveLength(0);
  });
});
