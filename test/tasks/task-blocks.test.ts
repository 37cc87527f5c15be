/**
 * How a reply's tasks become blocks for a posted message (lib/turn/task-blocks.ts),
 * within Slack's limits: 50 blocks a message (https://docs.slack.dev/block-kit),
 * 12,000 characters of markdown blocks, chat.update's 4,000-character `text`. Pure.
 */
import { describe, expect, it } from 'vitest';
import { fallbackText, MESSAGE_BLOCKS_MAX, messageBlocks, taskBlocks, TASKS_TITLE } from '../../lib/turn/task-blocks.js';
import type { TaskUpdateChunk } from '../../lib/turn/tasks.js';

const task = (id: string, status: TaskUpdateChunk['status'] = 'complete'): TaskUpdateChunk => ({ type: 'task_update', id, title: `Task ${id}`, status });

describe('task blocks', () => {
  it('no tasks and no plan: no blocks (a reply without tasks posts as before)', () => {
    expect(taskBlocks([], undefined, 49)).toEqual({ blocks: [] });
  });

  it('timeline: one task_card per task while they fit; past the room, one plan block titled Tasks holds them all', () => {
    expect(taskBlocks([task('a'), task('b')], undefined, 2).blocks.map((b) => b.type)).toEqual(['task_card', 'task_card']);
    const over = taskBlocks([task('a'), task('b'), task('c')], undefined, 2).blocks;
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ type: 'plan', title: TASKS_TITLE });
    expect((over[0]!.tasks as unknown[]).length).toBe(3);
  });

  it('no room for a single block (the bot sent 49): the tasks become lines with a status mark above the text', () => {
    const extra = Array.from({ length: MESSAGE_BLOCKS_MAX - 1 }, () => ({ type: 'divider' }));
    const out = messageBlocks({ text: 'Answer.', tasks: [task('a'), task('b', 'error')], extra, textMax: 4_000 });
    expect(out.blocks).toHaveLength(MESSAGE_BLOCKS_MAX);
    expect(out.blocks[0]).toEqual({ type: 'markdown', text: '✅ Task a\n⚠️ Task b\n\nAnswer.' });
  });

  it('the notification text is cut to the call’s limit, never inside an emoji; the markdown block keeps the whole text', () => {
    const text = `${'x'.repeat(3_998)}😀tail`;
    const out = messageBlocks({ text, tasks: [task('a')], textMax: 4_000 });
    expect(out.text.length).toBeLessThanOrEqual(4_000);
    expect(out.text).toBe(`${'x'.repeat(3_998)}…`);
    expect(out.blocks.at(-1)).toEqual({ type: 'markdown', text });
    expect(fallbackText('short', 4_000)).toBe('short');
  });
});
