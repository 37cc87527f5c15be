/**
 * Slack's AI-app surface on real copies (hub and cloud, real Bolt, one
 * Redis behind the Upstash bridge): the thinking status wherever the bot
 * answers, kept through a long turn; assistant threads whose prompts are set
 * once and whose context reaches the next turn; feedback clicks heard once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { assistantThreadEnvelope, deliver, feedbackBlocks, feedbackClickForm, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { RespClient } from '../../drill/sim/resp-client.js';
import { assistantThreadKey } from '../../lib/store/index.js';
import type { Feedback, TurnModule, TurnRequest } from '../../lib/bot/index.js';
import { eventually, quiescent, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { manualClock } from '../support/virtual-time.js';

const clock = manualClock();
let release: () => void = () => undefined;
const seen: TurnRequest[] = [];
const heard: Feedback[] = [];

/** The bot: answers at once, or holds the turn while `hold` is in the text, until the test lets go. */
const bot: TurnModule = {
  takeTurn: async (request) => {
    seen.push(request);
    if (request.text.includes('hold')) await new Promise<void>((r) => (release = r));
    return { text: `Answer to: ${request.text}`, blocks: feedbackBlocks() };
  },
  loadingMessages: ['Reading the thread...', 'Thinking it over...'],
  prompts: (thread) => [
    { title: 'Summarise', message: `Summarise ${thread.context.channel ?? 'this'}` },
    { title: 'Explain', message: 'Explain the last message' },
  ],
  onFeedback: (feedback) => void heard.push(feedback),
};

describe("Slack's AI-app surface, across two copies", () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi({ now: clock.now });
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot, timers: clock });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, turn: bot, timers: clock });
  // A test that failed mid-turn lets its turn go, so the next test starts on quiet copies.
  afterEach(() => release());
  let n = 0;
  const ts = () => `1700031000.${String(++n).padStart(6, '0')}`;
  const statusCalls = (channel: string, thread: string) =>
    api.calls.filter((c) => c.method === 'assistant.threads.setStatus' && c.params.channel_id === channel && c.params.thread_ts === thread);

  it('a channel mention shows the status with its loading messages, keeps it through a 130-second turn (one refresh), and the reply takes it away', async () => {
    const at = ts();
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-status-long', ts: at, channel: 'C0AI', text: '<@UAUTOHUB> hold on, think long' }), {
      signingSecret: SECRET,
    });
    await eventually(() => api.statusOf('C0AI', at)?.status === 'is thinking...', 'the status under the mention');
    expect(api.statusOf('C0AI', at)?.loadingMessages).toEqual(['Reading the thread...', 'Thinking it over...']);
    // 130 s in steps of 10 s: past Slack's two minutes, the status is still shown only if the refresh at 90 s landed.
    for (let s = 10; s <= 130; s += 10) {
      clock.advance(10_000);
      await eventually(() => api.statusOf('C0AI', at) !== undefined, `the status still shown at ${s} s`);
    }
    expect(statusCalls('C0AI', at).map((c) => c.params.status)).toEqual(['is thinking...', 'is thinking...']);
    release();
    await eventually(() => repliesTo(api, 'Ev-status-long').length === 1, 'the reply');
    expect(api.statusOf('C0AI', at)).toBeUndefined();
    await quiescent([hub, cloud]);
    // Slack took the status away with the reply: no clear was needed, and no refresh came after it.
    clock.advance(200_000);
    expect(statusCalls('C0AI', at)).toHaveLength(2);
  });

  it('a turn that answers within seconds sets the status once and never refreshes it; a DM thread gets it too', async () => {
    const dm = ts();
    const reply = ts();
    await deliver(
      cloud.eventsUrl,
      mentionEnvelope({ eventId: 'Ev-status-quick', ts: reply, threadTs: dm, channel: 'D0AIQUICK', type: 'message', channelType: 'im', text: 'quick one' }),
      {
        signingSecret: SECRET,
      },
    );
    await eventually(() => repliesTo(api, 'Ev-status-quick').length === 1, 'the reply');
    await quiescent([hub, cloud]);
    clock.advance(200_000);
    expect(statusCalls('D0AIQUICK', dm)).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it('an assistant thread opened on both copies (two deliveries, two event ids) gets its suggested prompts set once', async () => {
    const thread = ts();
    const started = (eventId: string) => assistantThreadEnvelope({ eventId, channel: 'D0AIPROMPTS', threadTs: thread, viewing: 'C0ROADMAP' });
    const acks = await Promise.all([
      deliver(hub.eventsUrl, started('Ev-open-1'), { signingSecret: SECRET }),
      deliver(cloud.eventsUrl, started('Ev-open-2'), { signingSecret: SECRET }),
    ]);
    expect(acks.map((a) => a.status)).toEqual([200, 200]);
    await quiescent([hub, cloud]);
    expect(api.promptsOf('D0AIPROMPTS', thread)).toEqual({
      prompts: [
        { title: 'Summarise', message: 'Summarise C0ROADMAP' },
        { title: 'Explain', message: 'Explain the last message' },
      ],
      calls: 1,
    });
  });

  it("a context change on one copy is the next turn's request.context on the other, kept sealed; the thread is titled once, after its first answer", async () => {
    const thread = ts();
    const channel = 'D0AICTX';
    await deliver(hub.eventsUrl, assistantThreadEnvelope({ eventId: 'Ev-ctx-open', channel, threadTs: thread, viewing: 'C0FIRST' }), { signingSecret: SECRET });
    await quiescent([hub, cloud]);
    await deliver(
      cloud.eventsUrl,
      assistantThreadEnvelope({
        eventId: 'Ev-ctx-move',
        type: 'assistant_thread_context_changed',
        channel,
        threadTs: thread,
        viewing: 'C0SECOND',
        enterprise: 'E0GRID',
      }),
      { signingSecret: SECRET },
    );
    await quiescent([hub, cloud]);
    const redis = await RespClient.open(fx.redis.port);
    const stored = await redis.command(['GET', assistantThreadKey(channel, thread)]).finally(() => redis.close());
    expect(String(stored)).toMatch(/^s1\./);
    expect(String(stored)).not.toContain('C0SECOND');

    const first = ts();
    await deliver(
      hub.eventsUrl,
      mentionEnvelope({ eventId: 'Ev-ctx-ask', ts: first, threadTs: thread, channel, type: 'message', channelType: 'im', text: 'What is new here?\nAnd why?' }),
      {
        signingSecret: SECRET,
      },
    );
    await eventually(() => repliesTo(api, 'Ev-ctx-ask').length === 1, 'the first answer');
    expect(seen.find((r) => r.eventId === 'Ev-ctx-ask')?.context).toEqual({ channel: 'C0SECOND', team: 'T0AUTOHUB', enterprise: 'E0GRID' });
    await eventually(() => api.titleOf(channel, thread) !== undefined, 'the title');
    expect(api.titleOf(channel, thread)).toEqual({ title: 'What is new here?', calls: 1 });

    await deliver(
      cloud.eventsUrl,
      mentionEnvelope({ eventId: 'Ev-ctx-again', ts: ts(), threadTs: thread, channel, type: 'message', channelType: 'im', text: 'And now?' }),
      {
        signingSecret: SECRET,
      },
    );
    await eventually(() => repliesTo(api, 'Ev-ctx-again').length === 1, 'the second answer');
    await quiescent([hub, cloud]);
    expect(api.titleOf(channel, thread)?.calls).toBe(1);
    // A mention in a channel is no assistant thread: no context.
    expect(seen.find((r) => r.eventId === 'Ev-status-long')?.context).toBeUndefined();
  });

  it('two context changes handled out of order on the two copies keep the later one (by event_ts), and a start handled last overwrites neither', async () => {
    // Bug caught: the context was a plain write, so the older change, handled last, was what the next turn saw.
    const thread = ts();
    const channel = 'D0AIORDER';
    const at = (s: number) => `1700032000.${String(s).padStart(6, '0')}`;
    const change = (eventId: string, viewing: string, eventTs: string) =>
      assistantThreadEnvelope({ eventId, type: 'assistant_thread_context_changed', channel, threadTs: thread, viewing, eventTs });
    await deliver(hub.eventsUrl, change('Ev-order-later', 'C0LATER', at(300)), { signingSecret: SECRET });
    await quiescent([hub, cloud]);
    await deliver(cloud.eventsUrl, change('Ev-order-earlier', 'C0EARLIER', at(200)), { signingSecret: SECRET });
    await deliver(hub.eventsUrl, assistantThreadEnvelope({ eventId: 'Ev-order-open', channel, threadTs: thread, viewing: 'C0OPENED', eventTs: at(100) }), {
      signingSecret: SECRET,
    });
    await quiescent([hub, cloud]);
    await deliver(
      cloud.eventsUrl,
      mentionEnvelope({ eventId: 'Ev-order-ask', ts: ts(), threadTs: thread, channel, type: 'message', channelType: 'im', text: 'Where am I?' }),
      { signingSecret: SECRET },
    );
    await eventually(() => repliesTo(api, 'Ev-order-ask').length === 1, 'the answer');
    expect(seen.find((r) => r.eventId === 'Ev-order-ask')?.context?.channel).toBe('C0LATER');
    expect(cloud.lines.filter((l) => l.event === 'assistant.context_older' && l.eventId === 'Ev-order-earlier')).toHaveLength(1);
  });

  it('a feedback click handed to both copies reaches onFeedback once, acked at once, with what the answer and the click say', async () => {
    const thread = ts();
    const answer = ts();
    const click = feedbackClickForm({
      triggerId: 'trigger-feedback-1',
      channel: 'C0AI',
      messageTs: answer,
      threadTs: thread,
      button: 'negative',
      metadata: { event_type: 'autohub_turn', event_payload: { event_id: 'Ev-answered', part: 0, final: true } },
    });
    const before = heard.length;
    const acks = await Promise.all([deliver(hub.eventsUrl, click, { signingSecret: SECRET }), deliver(cloud.eventsUrl, click, { signingSecret: SECRET })]);
    expect(acks.map((a) => a.status)).toEqual([200, 200]);
    expect(acks.map((a) => a.headers.get('x-autohub-claim')).sort()).toEqual(['claimed', 'duplicate']);
    await eventually(() => heard.length > before, 'the feedback');
    await quiescent([hub, cloud]);
    expect(heard.slice(before)).toEqual([
      { value: 'bad', positive: false, user: 'U0PERSON', channel: 'C0AI', messageTs: answer, threadTs: thread, eventId: 'Ev-answered', actionId: 'feedback' },
    ]);
    const positive = feedbackClickForm({ triggerId: 'trigger-feedback-2', channel: 'C0AI', messageTs: answer, threadTs: thread, button: 'positive' });
    await deliver(cloud.eventsUrl, positive, { signingSecret: SECRET });
    await eventually(() => heard.length > before + 1, 'the second click');
    expect(heard.at(-1)).toMatchObject({ value: 'good', positive: true, eventId: undefined });
  });
});
