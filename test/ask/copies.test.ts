/**
 * ctx.ask on real copies (real Bolt, receiver and runner, a real Redis behind the Upstash bridge, the fake
 * Web API): the turn parks on its question (no lease, no slot); a click to the copy that did not ask, after
 * the asker stopped, resumes it once: its earlier step not run again, ctx.ask returning the choice, the
 * buttons replaced by the choice. A click by someone else changes nothing; a second click is "already answered".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, quiescent, repliesTo, SECRET, startCopy, type RunningCopy } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { SHORT_LEASE } from '../support/child-app.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { buttonsOf, clickOn, questionIn, questionTs } from '../support/ask.js';

describe('ctx.ask on real copies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const running: RunningCopy[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()));
  });
  const counts = { prepared: 0, acted: 0 };
  const bot: TurnModule = {
    takeTurn: async (request, ctx) => {
      const plan = await ctx.step('prepare', () => {
        counts.prepared += 1;
        return 'v2';
      });
      // "remind": ctx.sleep instead of a question.
      if (request.text.includes('remind')) {
        await ctx.sleep(1000);
        return `Reminder: deploy ${plan}.`;
      }
      // "swallow": a bot that catches ctx.ask's throw and answers anyway (it must not be posted).
      if (request.text.includes('swallow')) {
        try {
          await ctx.ask({ text: 'Sure?', choices: ['Yes'] });
        } catch {
          return 'answered without waiting';
        }
        return 'answered after the wait';
      }
      // "quick": a question that waits a second.
      const quick = request.text.includes('quick');
      const answer = await ctx.ask({ text: `Deploy ${plan} to prod?`, choices: ['Deploy', 'Cancel'], ...(quick ? { timeoutMs: 1000 } : {}) });
      if (answer.timedOut) return 'No answer: not deploying.';
      if (answer.choice !== 'Deploy') return 'Cancelled.';
      await ctx.step('act', () => {
        counts.acted += 1;
        return true;
      });
      return `Deployed ${plan}, chosen by <@${answer.user}>.`;
    },
  };
  const start = async (role: 'hub' | 'cloud', env: Record<string, string> = {}) => {
    const copy = await startCopy({
      role,
      webApiUrl: api.url,
      upstash: { url: fx.bridge.url, token: fx.bridge.token },
      env: { ...SHORT_LEASE, ...env },
      turn: bot,
    });
    running.push(copy);
    return copy;
  };
  let n = 0;

  it('parks, then a click to the other copy after the asker stopped resumes it once, its step not run again', async () => {
    const hub = await start('hub');
    const cloud = await start('cloud');
    const eventId = `Ev-ask-${++n}`;
    const ts = `1700000300.${String(n).padStart(6, '0')}`;
    counts.prepared = 0;
    counts.acted = 0;
    expect((await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts }), { signingSecret: SECRET })).status).toBe(200);
    // The question, in the mention's thread, one button per choice.
    const q = await eventually(() => questionIn(api, ts), 'the question posted');
    expect(buttonsOf(q).map((b) => b.text.text)).toEqual(['Deploy', 'Cancel']);
    // Parked: the run ended, no lease held anywhere, nothing waits.
    await quiescent([hub, cloud]);
    expect(hub.lines.some((l) => l.event === 'turn.parked')).toBe(true);
    await hub.stop();
    running.splice(running.indexOf(hub), 1);
    const click = (user: string, i: number, trigger: string) =>
      deliver(cloud.eventsUrl, clickOn(q, ts, { user, triggerId: trigger, choice: i }), { signingSecret: SECRET });
    // Someone else clicks: told it is not theirs, nothing resumes.
    expect((await click('U0STRANGER', 0, `trig-ask-${n}-a`)).status).toBe(200);
    await eventually(() => api.calls.some((c) => c.method === 'chat.postEphemeral' && c.params.user === 'U0STRANGER'), 'the stranger told');
    expect(api.calls.find((c) => c.method === 'chat.postEphemeral' && c.params.user === 'U0STRANGER')!.params.text).toBe(
      'This question is not yours to answer.',
    );
    expect(repliesTo(api, eventId)).toHaveLength(0);
    // The person the bot answers clicks Deploy: the turn resumes on the cloud copy.
    expect((await click('U0PERSON', 0, `trig-ask-${n}-b`)).status).toBe(200);
    await eventually(() => repliesTo(api, eventId).length === 1, 'the resumed turn answered');
    await quiescent([cloud]);
    expect(repliesTo(api, eventId)[0]!.params.text).toBe('Deployed v2, chosen by <@U0PERSON>.');
    expect(counts).toEqual({ prepared: 1, acted: 1 });
    // The buttons replaced by the choice made.
    const update = api.calls.find((c) => c.method === 'chat.update' && c.params.ts === questionTs(q));
    expect(update?.params.blocks).toContain('*Deploy*: chosen by <@U0PERSON>');
    // A second click: already answered, nothing runs again.
    await click('U0PERSON', 1, `trig-ask-${n}-c`);
    await eventually(() => api.calls.filter((c) => c.method === 'chat.postEphemeral' && c.params.user === 'U0PERSON').length === 1, 'the late click told');
    expect(api.calls.find((c) => c.method === 'chat.postEphemeral' && c.params.user === 'U0PERSON')!.params.text).toBe(
      'This question has been answered already.',
    );
    await quiescent([cloud]);
    expect(repliesTo(api, eventId)).toHaveLength(1);
    expect(counts).toEqual({ prepared: 1, acted: 1 });
  });

  it('times out on the copy that did not ask, after the asker stopped: resumed once with timedOut, the buttons say so', async () => {
    const hub = await start('hub');
    // The cloud copy started before the question was parked: it reads the deadlines again only when its peer
    // watch finds the hub gone (lib/ask/watch.ts, lazy), then every 200 ms while one waits.
    const cloud = await start('cloud', { AUTOHUB_ASK_WATCH_MS: '200', AUTOHUB_PEER_URL: hub.url, AUTOHUB_PEER_CHECK_MS: '200' });
    const eventId = `Ev-ask-${++n}`;
    const ts = `1700000300.${String(n).padStart(6, '0')}`;
    counts.prepared = 0;
    counts.acted = 0;
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts, text: '<@UAUTOHUB> quick deploy' }), { signingSecret: SECRET });
    const questionAt = questionTs(await eventually(() => questionIn(api, ts), 'the question posted'));
    await hub.stop();
    running.splice(running.indexOf(hub), 1);
    await eventually(() => repliesTo(api, eventId).length === 1, 'the turn resumed by its timeout', 10_000);
    await quiescent([cloud]);
    expect(repliesTo(api, eventId)[0]!.params.text).toBe('No answer: not deploying.');
    expect(counts).toEqual({ prepared: 1, acted: 0 });
    expect(api.calls.find((c) => c.method === 'chat.update' && c.params.ts === questionAt)?.params.blocks).toContain('_No answer in time._');
    expect(cloud.lines.filter((l) => l.event === 'ask.answered')).toHaveLength(1);
  });

  it('ctx.sleep parks the turn and resumes it once when the time is up, on the copy that is up then', async () => {
    const hub = await start('hub');
    const cloud = await start('cloud', { AUTOHUB_ASK_WATCH_MS: '200', AUTOHUB_PEER_URL: hub.url, AUTOHUB_PEER_CHECK_MS: '200' });
    const eventId = `Ev-ask-${++n}`;
    const ts = `1700000300.${String(n).padStart(6, '0')}`;
    counts.prepared = 0;
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts, text: '<@UAUTOHUB> remind me' }), { signingSecret: SECRET });
    await eventually(() => hub.lines.some((l) => l.event === 'turn.parked'), 'the turn parked');
    // Nothing posted while it sleeps.
    expect(api.posts().filter((c) => c.params.thread_ts === ts)).toEqual([]);
    await hub.stop();
    running.splice(running.indexOf(hub), 1);
    await eventually(() => repliesTo(api, eventId).length === 1, 'the turn resumed after its sleep', 10_000);
    await quiescent([cloud]);
    expect(repliesTo(api, eventId)[0]!.params.text).toBe('Reminder: deploy v2.');
    expect(counts.prepared).toBe(1);
    expect(repliesTo(api, eventId)).toHaveLength(1);
  });

  it("a bot that swallows ctx.ask's throw is parked all the same: what it returns is not posted", async () => {
    const hub = await start('hub');
    const eventId = `Ev-ask-${++n}`;
    const ts = `1700000300.${String(n).padStart(6, '0')}`;
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts, text: '<@UAUTOHUB> swallow' }), { signingSecret: SECRET });
    await eventually(() => hub.lines.some((l) => l.event === 'turn.parked' && l.eventId === eventId), 'the turn parked');
    await quiescent([hub]);
    expect(repliesTo(api, eventId)).toEqual([]);
    expect(
      api
        .posts()
        .filter((c) => c.params.thread_ts === ts)
        .map((c) => c.params.text),
    ).toEqual(['Sure?']);
  });
});
