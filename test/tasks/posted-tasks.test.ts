import { describe, expect, it } from 'vitest';
import { TaskBoard } from '../../lib/turn/tasks.js';
import { ReplyWriter } from '../../lib/turn/writer.js';
import type { ReplyChunk } from '../../lib/bot/index.js';
import { PART_CHARS } from '../../lib/turn/parts.js';
import { eventually } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { task, useTaskWriter } from '../support/task-writer.js';

const api = useFakeWebApi();
const writers = useTaskWriter(api, { channel: 'C0POSTED', tsBase: '1700400000', eventPrefix: 'Ev-posted' });
const { target } = writers;
const statuses = (ts: string) => Object.fromEntries([...(api.tasksOf(ts) ?? new Map())].map(([id, t]) => [id, t.status]));
/** Every start throttled: the copy's stream is off, the reply is posted. */
const noStream = (method: string) => method === 'chat.startStream';
const postOf = (ts: string) => api.calls.find((c) => c.method === 'chat.postMessage' && (c.answer as { ts?: string } | undefined)?.ts === ts)!;
const refusedSince = (from: number) => api.calls.slice(from).filter((c) => (c.answer as { ok?: boolean } | undefined)?.ok === false);

describe('tasks in a posted reply', () => {
  it("a reply posted while the copy's stream is off carries each task's last state as task cards (an open one complete), beside the answer", async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield task('search', 'in_progress', 'Search the docs');
      yield task('read', 'pending', 'Read the page');
      yield task('search', 'complete', 'Search the docs');
      yield { type: 'task_update', id: 'read', title: 'Read the page', status: 'in_progress', output: 'the first hit' };
      yield 'The answer.';
    }
    const from = api.calls.length;
    const out = await new ReplyWriter(writers.client, target(), undefined, { closed: noStream }).write(reply());
    expect(out.how).toBe('posted');
    const ts = out.parts[0]!;
    expect(statuses(ts)).toEqual({ search: 'complete', read: 'complete' });
    const post = postOf(ts);
    const blocks = JSON.parse(post.params.blocks!);
    expect(blocks).toEqual([
      { type: 'task_card', task_id: 'search', title: 'Search the docs', status: 'complete' },
      {
        type: 'task_card',
        task_id: 'read',
        title: 'Read the page',
        status: 'complete',
        output: { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'the first hit' }] }] },
      },
      { type: 'markdown', text: 'The answer.' },
    ]);
    // The notification text is the answer; nothing refused, nothing streamed.
    expect(post.params.text).toBe('The answer.');
    expect(refusedSince(from)).toEqual([]);
    expect(api.calls.slice(from).some((c) => c.method === 'chat.startStream')).toBe(false);
  });

  it('a plan in a posted reply is one plan block with its title and its tasks, a task that failed kept as error', async () => {
    const board = new TaskBoard();
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield { type: 'plan_update', title: 'Looking into it' };
      yield task('a', 'complete', 'A');
      yield task('b', 'error', 'B');
      yield task('c', 'pending', 'C');
      yield 'Done, mostly.';
    }
    const out = await new ReplyWriter(writers.client, target(), undefined, { closed: noStream, tasks: board, taskDisplayMode: 'plan' }).write(reply());
    const [plan, text] = JSON.parse(postOf(out.parts[0]!).params.blocks!);
    expect(plan).toMatchObject({ type: 'plan', title: 'Looking into it' });
    expect(plan.tasks.map((t: { task_id: string; status: string }) => `${t.task_id}:${t.status}`)).toEqual(['a:complete', 'b:error', 'c:complete']);
    expect(text).toEqual({ type: 'markdown', text: 'Done, mostly.' });
    expect(board.open).toEqual([]);
  });

  it('a channel where Slack refuses streams (channel_type_not_supported): the post that replaces the stream carries the tasks', async () => {
    const t = { ...target(), channel: 'C0NOSTREAM' };
    api.refuseStreamsIn.add(t.channel);
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield task('tool', 'in_progress', 'Call the tool');
      yield 'Answer.';
    }
    const out = await new ReplyWriter(writers.client, t, undefined, { closed: () => false, noStream: new Set() }).write(reply());
    expect(out.how).toBe('posted');
    expect(statuses(out.parts[0]!)).toEqual({ tool: 'complete' });
  });

  it('a whole answer (not a stream) with steps shown as tasks, posted while chat.startStream is throttled, shows them complete', async () => {
    const board = new TaskBoard();
    board.update(task('search', 'complete', 'Search') as never);
    board.update(task('summarise', 'in_progress', 'Summarise') as never);
    const out = await new ReplyWriter(writers.client, target(), undefined, { closed: noStream, tasks: board }).writeText('The whole answer.');
    expect(out.how).toBe('posted');
    expect(statuses(out.parts[0]!)).toEqual({ search: 'complete', summarise: 'complete' });
  });

  it("a long posted answer rolls over into the next messages: the first carries the tasks, each within Slack's limits, the text whole", async () => {
    const long = `${'a'.repeat(PART_CHARS - 100)}\n\n${'b'.repeat(PART_CHARS - 100)}\n\n${'c'.repeat(50)}`;
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield task('think', 'in_progress', 'Think');
      yield long;
    }
    const from = api.calls.length;
    const feedback = { type: 'context_actions', elements: [{ type: 'feedback_buttons', action_id: 'fb' }] };
    const out = await new ReplyWriter(writers.client, target(), undefined, { closed: noStream }).write(reply(), [feedback]);
    expect(out.parts.length).toBeGreaterThanOrEqual(2);
    expect(statuses(out.parts[0]!)).toEqual({ think: 'complete' });
    for (const ts of out.parts.slice(1)) expect(statuses(ts)).toEqual({});
    const shown = out.parts.map((ts) => {
      const p = postOf(ts).params;
      const md = p.blocks ? JSON.parse(p.blocks).find((b: { type: string }) => b.type === 'markdown')?.text : undefined;
      return (md ?? p.text) as string;
    });
    expect(shown.join('')).toBe(long);
    for (const piece of shown) expect(piece.length).toBeLessThanOrEqual(PART_CHARS);
    // The bot's blocks end the last message, after its text.
    expect(JSON.parse(postOf(out.parts.at(-1)!).params.blocks!).at(-1)).toEqual(feedback);
    expect(refusedSince(from)).toEqual([]);
  });

  it("a posted answer with the bot's blocks (no tasks) shows its text as a markdown block before them (before: Slack showed the buttons alone)", async () => {
    const feedback = { type: 'context_actions', elements: [{ type: 'feedback_buttons', action_id: 'fb' }] };
    const out = await new ReplyWriter(writers.client, target(), undefined, { closed: noStream }).writeText('Rate me.', [feedback]);
    const post = postOf(out.parts[0]!);
    expect(JSON.parse(post.params.blocks!)).toEqual([{ type: 'markdown', text: 'Rate me.' }, feedback]);
    expect(post.params.text).toBe('Rate me.');
  });

  it('more tasks than a message has blocks for (50) go into one plan block: nothing refused, every task shown', async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      for (let i = 0; i < 60; i++) yield task(`t${i}`, 'complete', `Task ${i}`);
      yield 'Sixty tasks.';
    }
    const from = api.calls.length;
    const out = await new ReplyWriter(writers.client, target(), undefined, { closed: noStream }).write(reply());
    const blocks = JSON.parse(postOf(out.parts[0]!).params.blocks!);
    expect(blocks.length).toBeLessThanOrEqual(50);
    expect(Object.keys(statuses(out.parts[0]!))).toHaveLength(60);
    expect(refusedSince(from)).toEqual([]);
  });
});

describe('tasks in a rewritten message', () => {
  /** A chunked stream an earlier run began, its tasks in these states; stopped as a failed run stops it, or left open. */
  const begun = async (t: ReturnType<typeof target>, chunks: ReplyChunk[], stop?: ReplyChunk[]) => {
    const start = await writers.client.chat.startStream({
      channel: t.channel,
      thread_ts: t.threadTs,
      chunks: [...chunks, { type: 'markdown_text', text: 'Partial' }],
      recipient_user_id: 'U0PERSON',
      recipient_team_id: 'T0AUTOHUB',
    } as never);
    if (stop) await writers.client.chat.stopStream({ channel: t.channel, ts: start.ts!, chunks: stop } as never);
    return start.ts!;
  };
  const ledgerOf = (ts: string) => ({ parts: [ts], recordParts: async () => {}, confirmed: () => {} });

  it('a retry after a failed stream (its tasks left error) ends them in the retry’s last state: the update carries them as blocks', async () => {
    const t = target();
    const ts = await begun(
      t,
      [task('fetch', 'complete', 'Fetch'), task('think', 'in_progress', 'Think')],
      [task('think', 'error', 'Think'), { type: 'markdown_text', text: '\n\n_(interrupted: trying again)_' }],
    );
    expect(statuses(ts)).toEqual({ fetch: 'complete', think: 'error' });
    async function* again(): AsyncIterable<string | ReplyChunk> {
      yield task('fetch', 'complete', 'Fetch');
      yield task('think', 'in_progress', 'Think');
      yield 'The whole answer.';
    }
    const from = api.calls.length;
    const out = await new ReplyWriter(writers.client, t, ledgerOf(ts), { closed: () => false }).write(again());
    expect(out.how).toBe('completed');
    expect(statuses(ts)).toEqual({ fetch: 'complete', think: 'complete' });
    expect(api.streams.get(ts)).toMatchObject({ state: 'updated', text: 'The whole answer.' });
    expect(refusedSince(from).map((c) => (c.answer as { error: string }).error)).toEqual(['message_not_in_streaming_state']);
  });

  it('a takeover that finishes by posting (its stream off) ends the open message’s tasks complete, with the one answer', async () => {
    const t = target();
    const ts = await begun(t, [{ type: 'plan_update', title: 'Plan' }, task('a', 'complete', 'A'), task('b', 'in_progress', 'B')]);
    async function* again(): AsyncIterable<string | ReplyChunk> {
      yield { type: 'plan_update', title: 'Plan' };
      yield task('a', 'complete', 'A');
      yield task('b', 'complete', 'B');
      yield 'The answer.';
    }
    const out = await new ReplyWriter(writers.client, t, ledgerOf(ts), { closed: noStream, taskDisplayMode: 'plan' }).write(again());
    expect(out.how).toBe('completed');
    expect(statuses(ts)).toEqual({ a: 'complete', b: 'complete' });
    expect(api.streams.get(ts)).toMatchObject({ state: 'updated', text: 'The answer.', plan: 'Plan' });
  });

  it('a stream Slack closed (after about 5 minutes) is finished by an update that keeps its tasks, complete', async () => {
    const t = target();
    api.streamLifeMs = 0;
    try {
      async function* reply(): AsyncIterable<string | ReplyChunk> {
        yield task('slow', 'in_progress', 'Slow');
        yield 'Begun, ';
        await new Promise((r) => setImmediate(r));
        yield 'and finished.';
      }
      const out = await new ReplyWriter(writers.client, t, undefined, { closed: () => false, appendEveryMs: 0 }).write(reply());
      const ts = out.parts[0]!;
      expect(out.how).toBe('updated');
      expect(statuses(ts)).toEqual({ slow: 'complete' });
      expect(api.streams.get(ts)).toMatchObject({ state: 'updated', text: 'Begun, and finished.' });
    } finally {
      api.streamLifeMs = 300_000;
    }
  });

  it('the person presses Stop while a task is in progress: Slack takes no more chunks, so an update ends that task error, the text as Slack kept it', async () => {
    const t = target();
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield task('done', 'complete', 'Done');
      yield task('slow', 'in_progress', 'Slow');
      yield 'Begun';
      await released;
      yield ', and more.';
      yield task('slow', 'complete', 'Slow');
    }
    const writing = new ReplyWriter(writers.client, t, undefined, { closed: () => false, appendEveryMs: 0 }).write(reply());
    const mine = () => [...api.streams.entries()].find(([, st]) => st.thread_ts === t.threadTs);
    await eventually(() => mine()?.[1].text === 'Begun', 'the stream to hold the first text');
    const ts = mine()![0];
    expect(api.pressStop(ts)).toBe(true);
    release();
    const out = await writing;
    expect(out.how).toBe('stopped');
    expect(statuses(ts)).toEqual({ done: 'complete', slow: 'error' });
    expect(api.streams.get(ts)!.text).toBe('Begun');
  });

  it('a run that gives up after Slack closed its stream marks the open tasks error in that message, with the note', async () => {
    const t = target();
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    try {
      async function* reply(): AsyncIterable<string | ReplyChunk> {
        yield task('done', 'complete', 'Done');
        yield task('slow', 'in_progress', 'Slow');
        yield 'Begun';
        await released;
        yield ', more';
        throw new Error('model overloaded');
      }
      const w = new ReplyWriter(writers.client, t, undefined, { closed: () => false, appendEveryMs: 0 });
      const writing = w.write(reply());
      const mine = () => [...api.streams.entries()].find(([, st]) => st.thread_ts === t.threadTs);
      await eventually(() => mine()?.[1].text === 'Begun', 'the stream to hold the first text');
      // Slack closes the stream (its five minutes are up): the next append is refused.
      api.streamLifeMs = 0;
      release();
      await expect(writing).rejects.toThrow(/overloaded/);
      const ts = mine()![0];
      expect(w.open).toBe(ts);
      await w.interrupt('\n\n_(interrupted: trying again)_');
      expect(statuses(ts)).toEqual({ done: 'complete', slow: 'error' });
      expect(api.streams.get(ts)!.text).toBe('Begun\n\n_(interrupted: trying again)_');
      expect(w.open).toBeUndefined();
    } finally {
      api.streamLifeMs = 300_000;
    }
  });
});
