/**
 * A plan's tasks after a takeover, on real copies: the hub (a child process)
 * streams a plan whose second step is still in progress when it is
 * SIGKILLed; the cloud copy takes the turn over, its kept first step shows
 * complete without running again, and the message the hub left open ends
 * with every task complete and the one complete answer. Where Slack refuses
 * streams, the taker-over's post carries the plan, every task complete.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { loadTurnModule } from '../../app/turn-module.js';
import { eventually, repliesTo, SECRET, turnOver } from '../support/copies.js';
import { useTakeoverRig } from '../support/takeover-rig.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-plan-'));
const path = join(dir, 'plan-turn.mjs');
writeFileSync(
  path,
  `
export const taskDisplayMode = 'plan';
export async function* takeTurn(request, ctx) {
  yield { type: 'plan_update', title: 'Answering ' + request.eventId };
  await ctx.step('search', async () => {
    await ctx.client.chat.postMessage({ channel: 'C0TOOLS', text: 'searched for ' + request.eventId });
    return { hits: 3 };
  }, { task: 'Search the docs' });
  await ctx.step('read', async () => {
    // The hub is still reading when it is killed; the taker-over reads at once.
    if (request.copy.role === 'hub') await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    return { page: 1 };
  }, { task: { title: 'Read the page', details: 'the first hit' } });
  yield 'The answer, from ' + request.copy.role + '.';
}
`,
);

describe('a plan on real copies', () => {
  const rig = useTakeoverRig({ turn: () => loadTurnModule(path) });
  const searches = () => rig.api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.channel === 'C0TOOLS');
  const planOf = () => [...rig.api.streams.entries()].find(([, st]) => st.plan === 'Answering Ev-plan-1');

  it("a plan's tasks end complete after a takeover (the hub killed mid-plan): the kept step not run again, one answer in the hub's message", async () => {
    const hub = await rig.startHub({ AUTOHUB_TURN: path });
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-plan-1', ts: '1700018000.000001' }), { signingSecret: SECRET });
    // Mid-plan: the first task complete, the second in progress, in the hub's open stream.
    await eventually(() => planOf()?.[1].tasks.get('read')?.status === 'in_progress', 'the hub to be mid-plan', 10_000);
    const [ts, stream] = planOf()!;
    expect(stream.state).toBe('streaming');
    expect(stream.taskDisplayMode).toBe('plan');
    expect(stream.tasks.get('search')?.status).toBe('complete');
    hub.child.kill('SIGKILL');

    await turnOver(rig.cloud.store, 'Ev-plan-1', 15_000);
    const st = rig.api.streams.get(ts)!;
    expect(Object.fromEntries([...st.tasks].map(([id, t]) => [id, t.status]))).toEqual({ search: 'complete', read: 'complete' });
    expect(st.text).toBe('The answer, from cloud.');
    expect(['updated', 'stopped']).toContain(st.state);
    expect(searches()).toHaveLength(1);
    expect(repliesTo(rig.api, 'Ev-plan-1')).toHaveLength(1);
    // No other message of this turn is left streaming.
    expect([...rig.api.streams.values()].filter((s) => s.state === 'streaming')).toEqual([]);
  });

  it("a takeover that finishes by posting (Slack refuses streams in the channel) ends with the plan's tasks complete in the post", async () => {
    const channel = 'C0PLANPOSTS';
    rig.api.refuseStreamsIn.add(channel);
    const searchesBefore = searches().length;
    const hub = await rig.startHub({ AUTOHUB_TURN: path });
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-plan-2', ts: '1700018000.000002', channel }), { signingSecret: SECRET });
    // The hub's stream was refused, so it collects the answer to post it: killed while it reads (mid-plan), nothing posted.
    const refused = () => rig.api.calls.some((c) => c.method === 'chat.startStream' && c.params.channel === channel);
    await eventually(() => refused() && searches().length > searchesBefore, 'the hub to be mid-plan', 10_000);
    hub.child.kill('SIGKILL');

    await turnOver(rig.cloud.store, 'Ev-plan-2', 15_000);
    const replies = repliesTo(rig.api, 'Ev-plan-2');
    expect(replies).toHaveLength(1);
    const post = replies[0]!;
    expect(post.method).toBe('chat.postMessage');
    const ts = (post.answer as { ts: string }).ts;
    expect(Object.fromEntries([...rig.api.tasksOf(ts)!].map(([id, t]) => [id, t.status]))).toEqual({ search: 'complete', read: 'complete' });
    const [plan, text] = JSON.parse(post.params.blocks!);
    expect(plan).toMatchObject({ type: 'plan', title: 'Answering Ev-plan-2' });
    expect(text).toEqual({ type: 'markdown', text: 'The answer, from cloud.' });
  });
});
