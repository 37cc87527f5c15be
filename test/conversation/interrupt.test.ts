/**
 * `concurrency: 'interrupt'` on real copies: a hub and a cloud copy sharing
 * one Redis (through the Upstash bridge), real Bolt, the real WebClient
 * against the fake Web API, streamed replies. A follow-up written while the
 * thread's turn runs stops that turn, on whichever copy it runs: its
 * `ctx.signal` aborts with a TurnInterruptedError, what it streamed is closed
 * as `_(interrupted)_` and kept as its answer, and the follow-up is answered
 * knowing the question and that partial answer.
 *
 * The bugs these catch: an interrupt that never reaches a turn on the other
 * copy (the running turn would stream on, and the follow-up wait, for ever);
 * an interrupted turn failed and retried, or dead-lettered, instead of kept;
 * its message left streaming; the follow-up blind to the partial answer.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { ErrorCode } from '../../lib/errors/index.js';
import type { TurnContext, TurnModule, TurnRequest } from '../../lib/bot/index.js';
import { eventually, quiescent, repliesTo, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

/** How each turn's signal ended, by the message's text. */
const reasons = new Map<string, unknown>();
const streaming = new Set<string>();

/** "long ..." streams a first part, then waits for its signal; anything else answers with the history it saw. */
async function* takeTurn(request: TurnRequest, ctx: TurnContext): AsyncIterable<string> {
  if (request.text.startsWith('deaf')) {
    // A bot that never listens to its signal: it would stream on (and its thread wait) for ever.
    yield `partial answer to ${request.text}`;
    streaming.add(request.text);
    await new Promise<void>(() => {});
  }
  if (request.text.startsWith('long')) {
    yield `partial answer to ${request.text}`;
    streaming.add(request.text);
    await new Promise<void>((_, reject) =>
      ctx.signal.addEventListener(
        'abort',
        () => {
          reasons.set(request.text, ctx.signal.reason);
          reject(ctx.signal.reason);
        },
        { once: true },
      ),
    );
    yield 'never written';
    return;
  }
  const history = await ctx.history();
  yield `saw: ${history.map((m) => `${m.role}:${m.text}`).join(' | ')}`;
}

const bot: TurnModule = { takeTurn, concurrency: 'interrupt' };

describe("concurrency: 'interrupt', across the copies", () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const env = { AUTOHUB_LEASE_MS: '2000', AUTOHUB_LEASE_RENEW_MS: '500', AUTOHUB_REAPER_MS: '500' };
  const hub = useCopy({ role: 'hub', api, redis: fx, env, turn: bot });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env, turn: bot });
  let n = 0;
  // People wrote a minute ago: every answer the fake posts now (its ts is now) comes after the follow-up, as in Slack.
  const ts = () => `${Math.floor(Date.now() / 1000) - 60}.${String(++n).padStart(6, '0')}`;
  const streamOf = (eventId: string) => {
    const ts = (repliesTo(api, eventId)[0]?.answer as { ts?: string } | undefined)?.ts;
    return ts ? api.streams.get(ts) : undefined;
  };

  async function interrupted(where: 'the other copy' | 'the same copy', deaf = false) {
    const tag = deaf ? 'd' : where === 'the other copy' ? 'x' : 's';
    const thread = ts();
    const question = `${deaf ? 'deaf' : 'long'} question ${tag}`;
    api.addMessage('C0GENERAL', { ts: thread, user: 'U0PERSON', text: `<@UAUTOHUB> ${question}` });
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: `Ev-i-${tag}-first`, ts: thread, text: `<@UAUTOHUB> ${question}` }), { signingSecret: SECRET });
    await eventually(() => streaming.has(question), 'the first turn to stream its first part on the hub');

    const followTs = ts();
    api.addMessage('C0GENERAL', { ts: followTs, thread_ts: thread, user: 'U0PERSON', text: '<@UAUTOHUB> actually, something else' });
    const target = where === 'the other copy' ? cloud : hub;
    const follow = mentionEnvelope({ eventId: `Ev-i-${tag}-follow`, ts: followTs, threadTs: thread, text: '<@UAUTOHUB> actually, something else' });
    expect((await deliver(target.eventsUrl, follow, { signingSecret: SECRET })).status).toBe(200);

    await eventually(() => repliesTo(api, `Ev-i-${tag}-follow`).length > 0, 'the follow-up answered', 10_000);
    await quiescent([hub, cloud]);
    await turnOver(hub.store, `Ev-i-${tag}-first`);
    // The running turn's signal said why: an interrupt, readable by the bot.
    if (!deaf) expect((reasons.get(question) as { code?: string } | undefined)?.code).toBe(ErrorCode.TurnInterrupted);
    // Its partial answer is closed as interrupted (not left streaming) and kept: one reply, never retried.
    const first = streamOf(`Ev-i-${tag}-first`);
    expect(first?.state).toBe('stopped');
    expect(first?.text).toContain(`partial answer to ${question}`);
    expect(first?.text).toContain('_(interrupted)_');
    expect(first?.text).not.toContain('never written');
    expect(repliesTo(api, `Ev-i-${tag}-first`)).toHaveLength(1);
    expect(hub.lines.some((l) => l.event === 'turn.interrupted' && l.eventId === `Ev-i-${tag}-first`)).toBe(true);
    expect([...hub.lines, ...cloud.lines].some((l) => l.event === 'turn.failed' && String(l.eventId).startsWith(`Ev-i-${tag}`))).toBe(false);
    // The follow-up knew the question and the partial answer.
    expect(streamOf(`Ev-i-${tag}-follow`)?.text).toBe(`saw: user:${question} | assistant:partial answer to ${question}\n\n_(interrupted)_`);
    expect(target.lines.some((l) => l.event === 'conversation.interrupting' && l.eventId === `Ev-i-${tag}-follow`)).toBe(true);
  }

  it('a follow-up on the other copy interrupts the running turn through the store: closed as interrupted, and the follow-up knows it', async () => {
    await interrupted('the other copy');
  });

  it('a follow-up on the same copy interrupts the running turn at once', async () => {
    await interrupted('the same copy');
  });

  it('a bot that ignores ctx.signal is interrupted all the same: its stream is no longer read, and closed', async () => {
    await interrupted('the other copy', true);
  });
});
