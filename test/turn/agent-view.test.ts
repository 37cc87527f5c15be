/**
 * The Agent messaging experience on real copies (issue 45, item 1; docs.slack.dev/ai/migrating-to-agent-messaging).
 * Before, autohub listened to assistant_thread_started / _context_changed only: an app on Slack's agent view
 * (what manifest.json now declares) showed no prompts when a DM was opened and its turns never had a context.
 */
import { describe, expect, it } from 'vitest';
import { agentEnvelope, deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import type { TurnModule, TurnRequest } from '../../lib/bot/index.js';
import { eventually, quiescent, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';

const seen: TurnRequest[] = [];
const opened: Array<{ threadTs: string | undefined; channel: string | undefined }> = [];
const bot: TurnModule = {
  takeTurn: (request) => {
    seen.push(request);
    return `Answer to: ${request.text}`;
  },
  prompts: (dm) => {
    opened.push({ threadTs: dm.threadTs, channel: dm.context.channel });
    return [{ title: 'Summarise', message: `Summarise ${dm.context.channel ?? 'this'}` }];
  },
};

describe('the Agent messaging experience, across two copies', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, turn: bot });
  const prompts = () => api.calls.filter((c) => c.method === 'assistant.threads.setSuggestedPrompts');

  it('a DM opened (app_home_opened, tab messages) on both copies gets its prompts set once, without a thread_ts, naming what the person looks at', async () => {
    const from = prompts().length;
    const open = (eventId: string) =>
      agentEnvelope({ eventId, type: 'app_home_opened', channel: 'D0AGENT1', viewing: 'C0ROADMAP', eventTs: '1700040000.000100' });
    const acks = await Promise.all([
      deliver(hub.eventsUrl, open('Ev-agent-open-1'), { signingSecret: SECRET }),
      deliver(cloud.eventsUrl, open('Ev-agent-open-2'), { signingSecret: SECRET }),
    ]);
    expect(acks.map((a) => a.status)).toEqual([200, 200]);
    await quiescent([hub, cloud]);
    const calls = prompts().slice(from);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.params.thread_ts).toBeUndefined();
    expect(api.promptsOf('D0AGENT1', '')).toEqual({ prompts: [{ title: 'Summarise', message: 'Summarise C0ROADMAP' }], calls: 1 });
    expect(opened.at(-1)).toEqual({ threadTs: undefined, channel: 'C0ROADMAP' });
  });

  it('the App Home tab opened (tab home) sets no prompts', async () => {
    const from = prompts().length;
    await deliver(hub.eventsUrl, agentEnvelope({ eventId: 'Ev-agent-home', type: 'app_home_opened', tab: 'home', channel: 'D0AGENT2' }), {
      signingSecret: SECRET,
    });
    await quiescent([hub, cloud]);
    expect(prompts().slice(from)).toEqual([]);
  });

  it("a context change (app_context_changed) on one copy is the next DM turn's request.context on the other; no assistant thread, so no title", async () => {
    await deliver(cloud.eventsUrl, agentEnvelope({ eventId: 'Ev-agent-ctx-1', type: 'app_context_changed', user: 'U0AGENT', viewing: 'C0FIRST' }), {
      signingSecret: SECRET,
    });
    await deliver(cloud.eventsUrl, agentEnvelope({ eventId: 'Ev-agent-ctx-2', type: 'app_context_changed', user: 'U0AGENT', viewing: 'C0SECOND' }), {
      signingSecret: SECRET,
    });
    await quiescent([hub, cloud]);
    const ask = mentionEnvelope({
      eventId: 'Ev-agent-ask',
      ts: '1700040001.000100',
      channel: 'D0AGENT3',
      user: 'U0AGENT',
      type: 'message',
      channelType: 'im',
      text: 'What is new?',
    });
    await deliver(hub.eventsUrl, ask, { signingSecret: SECRET });
    await eventually(() => repliesTo(api, 'Ev-agent-ask').length === 1, 'the answer');
    await quiescent([hub, cloud]);
    expect(seen.find((r) => r.eventId === 'Ev-agent-ask')?.context).toEqual({ channel: 'C0SECOND', team: 'T0AUTOHUB', enterprise: undefined });
    expect(api.calls.some((c) => c.method === 'assistant.threads.setTitle' && c.params.channel_id === 'D0AGENT3')).toBe(false);
  });

  it("someone else's DM has no context from that person's changes", async () => {
    await deliver(
      hub.eventsUrl,
      mentionEnvelope({
        eventId: 'Ev-agent-other',
        ts: '1700040002.000100',
        channel: 'D0AGENT4',
        user: 'U0OTHER',
        type: 'message',
        channelType: 'im',
        text: 'hi',
      }),
      {
        signingSecret: SECRET,
      },
    );
    await eventually(() => repliesTo(api, 'Ev-agent-other').length === 1, 'the answer');
    expect(seen.find((r) => r.eventId === 'Ev-agent-other')?.context).toBeUndefined();
  });
});
