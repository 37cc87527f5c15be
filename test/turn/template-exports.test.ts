/**
 * What Slack's assistant template does, said in the module (issue 45, item 5): a greeting once per thread
 * across the copies (before: only through a raw Bolt listener, unguarded, so a takeover could greet twice),
 * a heading over the prompts, the task display mode per turn (before: one value per module), and the bot's
 * own words for autohub's notes.
 */
import { describe, expect, it } from 'vitest';
import { agentEnvelope, assistantThreadEnvelope, deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import type { ReplyChunk, TurnModule } from '../../lib/bot/index.js';
import { eventually, messagesFor, quiescent, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const GREETING = 'Hi! What can I do for you?';
const DEAD = 'Sorry, that one broke me. My owner knows.';

const bot: TurnModule = {
  takeTurn: (request, ctx) => {
    if (request.text.includes('bug')) throw new TypeError('a bug in the bot');
    if (!request.text.includes('plan')) return 'ok';
    ctx.taskDisplayMode = 'plan';
    return (async function* (): AsyncIterable<string | ReplyChunk> {
      yield { type: 'task_update', id: 'look', title: 'Look', status: 'complete' };
      yield 'Planned.';
    })();
  },
  greeting: GREETING,
  promptsTitle: 'Try asking',
  prompts: [{ title: 'Summarise', message: 'Summarise this channel' }],
  notes: { dead: DEAD },
};

describe('the template, said in the module, across two copies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, turn: bot });
  const greetings = (channel: string) => api.posts().filter((c) => c.params.channel === channel && c.params.text === GREETING);
  const promptCalls = (channel: string) => api.calls.filter((c) => c.method === 'assistant.threads.setSuggestedPrompts' && c.params.channel_id === channel);

  it('an assistant thread opened on both copies is greeted once, in the thread, and its prompts carry the heading', async () => {
    const thread = '1700050000.000100';
    const started = (eventId: string) => assistantThreadEnvelope({ eventId, channel: 'D0GREET1', threadTs: thread });
    await Promise.all([
      deliver(hub.eventsUrl, started('Ev-greet-1'), { signingSecret: SECRET }),
      deliver(cloud.eventsUrl, started('Ev-greet-2'), { signingSecret: SECRET }),
    ]);
    await quiescent([hub, cloud]);
    expect(greetings('D0GREET1').map((c) => c.params.thread_ts)).toEqual([thread]);
    expect(promptCalls('D0GREET1').map((c) => c.params.title)).toEqual(['Try asking']);
  });

  it('a DM of the agent view opened twice is greeted once, and gets its prompts (with the heading) at each opening', async () => {
    for (const [i, copy] of [hub, cloud].entries()) {
      await deliver(copy.eventsUrl, agentEnvelope({ eventId: `Ev-greet-dm-${i}`, type: 'app_home_opened', channel: 'D0GREET2' }), { signingSecret: SECRET });
      await quiescent([hub, cloud]);
    }
    expect(greetings('D0GREET2').map((c) => c.params.thread_ts)).toEqual([undefined]);
    expect(promptCalls('D0GREET2').map((c) => c.params.title)).toEqual(['Try asking', 'Try asking']);
  });

  it("a turn's own ctx.taskDisplayMode is the stream's task_display_mode (the module sets none)", async () => {
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-own-plan', ts: '1700050001.000100', channel: 'C0PLAN', text: '<@UAUTOHUB> plan it' }), {
      signingSecret: SECRET,
    });
    await turnOver(hub.store, 'Ev-own-plan');
    const start = api.calls.find((c) => c.method === 'chat.startStream' && c.params.channel === 'C0PLAN');
    expect(start?.params.task_display_mode).toBe('plan');
  });

  it("a dead letter's note is in the bot's words", async () => {
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-own-dead', ts: '1700050002.000100', channel: 'C0DEAD', text: '<@UAUTOHUB> bug' }), {
      signingSecret: SECRET,
    });
    await eventually(() => messagesFor(api, 'Ev-own-dead').length > 0, 'the dead note');
    expect(messagesFor(api, 'Ev-own-dead').map((c) => c.params.text)).toEqual([DEAD]);
  });
});
