/**
 * Chunks as Slack takes them (issue 45, item 4). Before: a turn that yielded a `blocks` chunk (@slack/types 3.2
 * BlocksChunk) was a dead letter (a TypeError reading it); every task update was re-sent merged with the
 * task's earlier details, which Slack adds to the card (so they showed twice); and a stream call sent its
 * tasks before its text, whatever order the turn yielded them in.
 */
import { describe, expect, it } from 'vitest';
import { BLOCKS_CHUNK_MAX, readChunk, statusOnly, stepTask, TaskBoard } from '../../lib/turn/tasks.js';
import { ReplyWriter } from '../../lib/turn/writer.js';
import type { ReplyChunk } from '../../lib/bot/index.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { useTaskWriter } from '../support/task-writer.js';

const api = useFakeWebApi();
const writers = useTaskWriter(api, { channel: 'C0CHUNKS', tsBase: '1700500000', eventPrefix: 'Ev-chunks' });
const writer = (o: { tasks?: TaskBoard; closed?: (method: string) => boolean; appendEveryMs?: number } = {}) =>
  new ReplyWriter(writers.client, writers.target(), undefined, { closed: () => false, appendEveryMs: 0, ...o });
/** Appends a minute apart: all that follows the start goes in the one stop, in the order it was yielded. */
const batched = { appendEveryMs: 60_000 };
const divider = { type: 'divider' };
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** What a streamed reply's messages show, in order, adjacent texts joined (how they were cut into calls is no matter). */
function showsOf(...parts: string[]): unknown[] {
  const out: unknown[] = [];
  for (const item of parts.flatMap((ts) => api.streams.get(ts)!.shows)) {
    const last = out.at(-1) as { text?: string } | undefined;
    if ('text' in item && last && typeof last.text === 'string') last.text += item.text;
    else out.push({ ...item });
  }
  return out;
}

describe('chunks in the order the turn yielded them', () => {
  it("a blocks chunk streams where it was yielded: the text before it, its blocks, the text after, then the bot's own blocks at the end", async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield 'Here is the table. ';
      yield { type: 'blocks', blocks: [section('*Q3*: 12'), divider] };
      yield 'And the rest.';
    }
    const out = await writer(batched).write(reply(), [section('feedback')]);
    expect(out.how).toBe('streamed');
    // Begun as text, the reply goes on in a chunked message at the blocks (Slack wants one mode a stream).
    expect(showsOf(...out.parts)).toEqual([
      { text: 'Here is the table. ' },
      { blocks: [section('*Q3*: 12'), divider] },
      { text: 'And the rest.' },
      { blocks: [section('feedback')] },
    ]);
  });

  it('a task yielded after some text shows after it, not before (timeline mode interleaves cards with the text)', async () => {
    const board = new TaskBoard();
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield { type: 'task_update', id: 'plan', title: 'Plan', status: 'complete' };
      yield 'First I looked. ';
      yield { type: 'task_update', id: 'search', title: 'Search', status: 'complete' };
      yield 'Then I answered.';
    }
    const out = await writer({ tasks: board, ...batched }).write(reply());
    expect(showsOf(out.parts[0]!)).toEqual([{ task: 'plan' }, { text: 'First I looked. ' }, { task: 'search' }, { text: 'Then I answered.' }]);
  });

  it("a posted reply (the stream off) ends with the yielded blocks after its text, before the bot's own", async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield 'Posted. ';
      yield { type: 'blocks', blocks: [divider] };
    }
    const out = await writer({ closed: (m) => m === 'chat.startStream' }).write(reply(), [section('feedback')]);
    expect(out.how).toBe('posted');
    const post = api.calls.find((c) => c.method === 'chat.postMessage' && (c.answer as { ts?: string } | undefined)?.ts === out.parts[0])!;
    expect(JSON.parse(post.params.blocks!)).toEqual([{ type: 'markdown', text: 'Posted. ' }, divider, section('feedback')]);
  });
});

describe("a task's details, output and sources as Slack combines them (each update's added to the card)", () => {
  it('each is sent once, as the turn yielded it: an update without details does not send them again', async () => {
    async function* reply(): AsyncIterable<string | ReplyChunk> {
      yield { type: 'task_update', id: 'fetch', title: 'Fetch', status: 'in_progress', details: '- the goal' };
      yield 'Working. ';
      yield { type: 'task_update', id: 'fetch', title: 'Fetch', status: 'in_progress', details: '\n- the limits' };
      yield 'More. ';
      yield { type: 'task_update', id: 'fetch', title: 'Fetch', status: 'complete', output: '42 records' };
      yield 'Done.';
    }
    const out = await writer().write(reply());
    expect(api.streams.get(out.parts[0]!)!.tasks.get('fetch')).toEqual({
      title: 'Fetch',
      status: 'complete',
      details: '- the goal\n- the limits',
      output: '42 records',
    });
  });

  it('the board keeps each task whole for a message that shows it at once (a post, an update), the deltas joined in order', () => {
    const board = new TaskBoard();
    const source = (url: string) => ({ type: 'url' as const, url, text: url });
    board.update({ type: 'task_update', id: 't', title: 'T', status: 'in_progress', details: 'a', sources: [source('https://a.example')] });
    board.take();
    board.update({ type: 'task_update', id: 't', title: 'T', status: 'in_progress', details: 'b', sources: [source('https://b.example')] });
    board.update({ type: 'task_update', id: 't', title: 'T', status: 'complete', output: 'done' });
    // What is sent next: the two updates not yet sent, joined (b and its source once), the newest status.
    expect(board.take().map((u) => u.chunk)).toEqual([
      { type: 'task_update', id: 't', title: 'T', status: 'complete', details: 'b', output: 'done', sources: [source('https://b.example')] },
    ]);
    expect(board.final()).toEqual([
      {
        type: 'task_update',
        id: 't',
        title: 'T',
        status: 'complete',
        details: 'ab',
        output: 'done',
        sources: [source('https://a.example'), source('https://b.example')],
      },
    ]);
  });
  it("a step shown as a task sends its details with its first update only, and a taker-over's stop ends each card by status alone", () => {
    const task = { title: 'File the ticket', details: 'to the desk' };
    expect(stepTask('file', task, 'in_progress')).toEqual({
      type: 'task_update',
      id: 'file',
      title: 'File the ticket',
      status: 'in_progress',
      details: 'to the desk',
    });
    expect(stepTask('file', task, 'complete')).toEqual({ type: 'task_update', id: 'file', title: 'File the ticket', status: 'complete' });
    expect(statusOnly([{ type: 'task_update', id: 'f', title: 'F', status: 'complete', details: 'd', output: 'o' }])).toEqual([
      { type: 'task_update', id: 'f', title: 'F', status: 'complete' },
    ]);
  });
});

describe('a blocks chunk as the turn yields it', () => {
  it(`holds 1 to ${BLOCKS_CHUNK_MAX} blocks, each with a type; anything else is the turn's bug, named`, () => {
    expect(readChunk({ type: 'blocks', blocks: [divider] })).toEqual({ type: 'blocks', blocks: [divider] });
    expect(readChunk({ type: 'blocks', blocks: Array(BLOCKS_CHUNK_MAX).fill(divider) })).toMatchObject({ type: 'blocks' });
    for (const blocks of [[], Array(BLOCKS_CHUNK_MAX + 1).fill(divider), [{ text: 'no type' }], 'divider']) {
      expect(readChunk({ type: 'blocks', blocks })).toEqual({
        wrong: `a blocks chunk whose \`blocks\` is not 1 to ${BLOCKS_CHUNK_MAX} blocks, each with a \`type\``,
      });
    }
  });
});
