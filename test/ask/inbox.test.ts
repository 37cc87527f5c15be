/**
 * A click on a question kept by the edge's inbox while both copies were down: run when a copy returns,
 * it resumes the parked turn once, its earlier step not run again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clickOn, questionIn } from '../support/ask.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { createEdgeKeeper, createInboxStore, parseInboxSettings } from '../../lib/inbox/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { eventually, quiescent, repliesTo, SECRET, startCopy, type RunningCopy } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import type { TurnModule } from '../../lib/bot/index.js';

describe('a click kept by the edge while both copies were down', () => {
  const redis = useRedisBridge();
  const api = useFakeWebApi();
  const running: RunningCopy[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()));
  });
  let prepared = 0;
  const bot: TurnModule = {
    takeTurn: async (_request, ctx) => {
      await ctx.step('prepare', () => {
        prepared += 1;
        return true;
      });
      const answer = await ctx.ask({ text: 'Ship it?', choices: ['Ship', 'Wait'] });
      return answer.timedOut ? 'No answer.' : `${answer.choice}, said <@${answer.user}>.`;
    },
  };
  const start = async (role: 'hub' | 'cloud') => {
    const copy = await startCopy({ role, webApiUrl: api.url, upstash: { url: redis.bridge.url, token: redis.bridge.token }, turn: bot });
    running.push(copy);
    return copy;
  };

  it('resumes the turn once when a copy returns and drains it', async () => {
    const hub = await start('hub');
    const eventId = 'Ev-ask-inbox-1';
    const ts = '1700000400.000001';
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts }), { signingSecret: SECRET });
    const q = await eventually(() => questionIn(api, ts), 'the question posted');
    await quiescent([hub]);
    // Both copies down: the edge keeps the click, signed by Slack.
    await hub.stop();
    running.splice(0);
    const body = clickOn(q, ts, { user: 'U0PERSON', triggerId: 'trig-ask-inbox-1' });
    const settings = parseInboxSettings({ UPSTASH_REDIS_REST_URL: redis.bridge.url, UPSTASH_REDIS_REST_TOKEN: redis.bridge.token })!;
    const arrivedAt = Date.now();
    const request = new Request('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(await signedHeaders(SECRET, body, arrivedAt)) },
      body,
    });
    expect((await createEdgeKeeper({ settings, signingSecret: SECRET }).keep(request, new TextEncoder().encode(body), arrivedAt, 2_000)).kind).toBe('kept');
    // A copy returns: its start-up drain runs the kept click.
    const cloud = await start('cloud');
    await eventually(async () => (await createInboxStore({ url: redis.bridge.url, token: redis.bridge.token }).stats()).size === 0, 'the inbox drained');
    await eventually(() => repliesTo(api, eventId).length === 1, 'the turn resumed');
    await quiescent([cloud]);
    expect(repliesTo(api, eventId)[0]!.params.text).toBe('Ship, said <@U0PERSON>.');
    expect(repliesTo(api, eventId)).toHaveLength(1);
    expect(prepared).toBe(1);
  });
});
