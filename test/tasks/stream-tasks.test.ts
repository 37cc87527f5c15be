import { describe, expect, it } from 'vitest';
import { TaskBoard } from '../../lib/turn/tasks.js';
import { ReplyWriter } from '../../lib/turn/writer.js';
import type { ReplyChunk } from '../../lib/bot/index.js';
import { PART_CHARS } from '../../lib/turn/parts.js';
import { eventually } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { task, useTaskWriter } from '../support/task-writer.js';

const api = useFakeWebApi();
const writers = useTaskWriter(api, { channel: 'C0TASKS', tsBase: '1700300000', eventPrefix: 'Ev-tasks' });
const { target } = writers;
const writer = (o: { tasks?: TaskBoard; taskDisplayMode?: 'timeline' | 'plan' } = {}) =>
  new ReplyWriter(writers.client, target(), undefined, { closed: () => false, appendEveryMs: 0, ...o });
const tasksOf = (ts: string) => Object.fromEntries([...(api.streams.get(ts)?.tasks ?? new Map())].map(([id, t]) => [id, t.status]));
const callsFor = (ts: string | undefined, from: number) =>
  api.calls.slice(from).filter((c) => c.params.ts === ts || (c.method === 'chat.startStream' && c.answer && (c.answer as { ts?: string }).ts === ts));

describe('tasks and plans in a stream', () => {
  it('a plan with its tasks streams as chunks from the first call, with task_display_mode, and ends with every task complete', async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield { type: 'plan_update', title: 'Looking into it' };
      yield task('search', 'in_progress', 'Search the docs');
      yield task('read', 'pending', 'Read the page');
      yield task('search', 'complete', 'Search the docs');
      yield task('read', 'in_progress', 'Read the page');
      yield 'Here is ';
      yield task('read', 'complete', 'Read the page');
      yield { type: 'markdown_text', text: 'the answer.' };
    }
    const from = api.calls.length;
    const out = await writer({ taskDisplayMode: 'plan' }).write(reply());
    const ts = out.parts[0]!;
    const st = api.streams.get(ts)!;
    expect(st).toMatchObject({ state: 'stopped', mode: 'chunks', taskDisplayMode: 'plan', plan: 'Looking into it', text: 'Here is the answer.' });
    expect(tasksOf(ts)).toEqual({ search: 'complete', read: 'complete' });
    const start = api.calls.slice(from).find((c) => c.method === 'chat.startStream')!;
    expect(start.params.task_display_mode).toBe('plan');
    expect(start.params.markdown_text).toBeUndefined();
    expect(JSON.parse(start.params.chunks!)[0]).toEqual({ type: 'plan_update', title: 'Looking into it' });
    expect(callsFor(ts, from).every((c) => c.params.markdown_text === undefined)).toBe(true);
  });

  it('a task still open when the reply is whole is closed complete with it: nothing is left spinning', async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield task('lookup', 'in_progress');
      yield 'Done.';
    }
    const out = await writer().write(reply());
    expect(tasksOf(out.parts[0]!)).toEqual({ lookup: 'complete' });
    expect(api.streams.get(out.parts[0]!)!.state).toBe('stopped');
  });

  it('a task that comes to a stream begun as text goes on in a chunked message of its own: no streaming_mode_mismatch, the text whole across both', async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield 'First, some text. ';
      yield task('tool', 'in_progress', 'Call the tool');
      yield task('tool', 'complete', 'Call the tool');
      yield 'Then the rest.';
    }
    const from = api.calls.length;
    const out = await writer().write(reply());
    expect(out.parts).toHaveLength(2);
    const [a, b] = out.parts.map((ts) => api.streams.get(ts)!);
    expect(a).toMatchObject({ mode: 'markdown_text', text: 'First, some text. ', state: 'stopped' });
    expect(a!.tasks.size).toBe(0);
    expect(b).toMatchObject({ mode: 'chunks', text: 'Then the rest.', state: 'stopped' });
    expect(tasksOf(out.parts[1]!)).toEqual({ tool: 'complete' });
    expect(api.calls.slice(from).filter((c) => (c.answer as { error?: string } | undefined)?.error)).toEqual([]);
  });

  it('a long answer rolls over into the next message, but not while a task is open there: the text waits for the task', async () => {
    const board = new TaskBoard();
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield task('slow', 'in_progress', 'A slow tool');
      yield 'x'.repeat(PART_CHARS - 10);
      yield ` ${'y'.repeat(100)}`;
      await released;
      yield task('slow', 'complete', 'A slow tool');
      yield ' the end';
    }
    const t = target();
    const writing = new ReplyWriter(writers.client, t, undefined, { closed: () => false, appendEveryMs: 0, tasks: board }).write(reply());
    const mine = () => [...api.streams.values()].filter((st) => st.thread_ts === t.threadTs);
    // The first message takes what fits and stays open while the task is: no second message yet.
    await eventually(() => mine()[0]?.text.length === PART_CHARS - 10, 'the first message to fill');
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.state).toBe('streaming');
    release();
    const out = await writing;
    expect(out.parts.length).toBeGreaterThanOrEqual(2);
    for (const ts of out.parts) {
      expect(Object.values(tasksOf(ts)).filter((s) => s === 'pending' || s === 'in_progress')).toEqual([]);
      expect(api.streams.get(ts)!.text.length).toBeLessThanOrEqual(PART_CHARS);
    }
    expect(out.parts.map((ts) => api.streams.get(ts)!.text).join('')).toBe(`${'x'.repeat(PART_CHARS - 10)} ${'y'.repeat(100)} the end`);
    expect(tasksOf(out.parts[0]!)).toEqual({ slow: 'complete' });
  });

  it('a run that fails mid-stream closes its message with each open task as error, and the note', async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield task('fetch', 'complete', 'Fetch');
      yield task('think', 'in_progress', 'Think');
      yield 'Partial';
      throw new Error('model overloaded');
    }
    const w = writer();
    await expect(w.write(reply())).rejects.toThrow(/overloaded/);
    const ts = w.open!;
    await w.interrupt('\n\n_(interrupted: trying again)_');
    expect(tasksOf(ts)).toEqual({ fetch: 'complete', think: 'error' });
    expect(api.streams.get(ts)).toMatchObject({ state: 'stopped', text: 'Partial\n\n_(interrupted: trying again)_' });
    expect(w.open).toBeUndefined();
  });

  it('a taker-over completing an open chunked stream sends every task in its last state with the stop, then rewrites the text', async () => {
    const t = target();
    const start = await writers.client.chat.startStream({
      channel: t.channel,
      thread_ts: t.threadTs,
      chunks: [task('a', 'complete', 'A'), task('b', 'in_progress', 'B'), { type: 'markdown_text', text: 'half an ans' }],
      recipient_user_id: 'U0PERSON',
      recipient_team_id: 'T0AUTOHUB',
    } as never);
    const board = new TaskBoard();
    async function* again(): AsyncIterable<string | ReplyChunk> {
      yield task('a', 'complete', 'A');
      yield task('b', 'complete', 'B');
      yield 'the whole answer';
    }
    const ledger = { parts: [start.ts!], recordParts: async () => {}, confirmed: () => {} };
    const out = await new ReplyWriter(writers.client, t, ledger, { closed: () => false, tasks: board }).write(again());
    expect(out.how).toBe('completed');
    expect(tasksOf(start.ts!)).toEqual({ a: 'complete', b: 'complete' });
    expect(api.streams.get(start.ts!)).toMatchObject({ state: 'updated', text: 'the whole answer' });
  });

  it('a chunk Slack does not know is the turn’s bug: a TypeError that names it, before anything more is sent', async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield 'Hi';
      yield { type: 'task_update', id: 'x', title: 'X', status: 'running' } as never;
    }
    await expect(writer().write(reply())).rejects.toThrow(/status is "running" \(expected one of pending, in_progress, complete, error\)/);
  });
});
