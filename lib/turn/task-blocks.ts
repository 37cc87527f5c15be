/**
 * A reply's tasks in a posted message: the same tasks a stream shows, as
 * Block Kit blocks, for chat.postMessage and chat.update (which take no
 * `chunks`). Pure.
 *
 *   - Each task is a `task_card` block (https://docs.slack.dev/reference/block-kit/blocks/task-card-block):
 *     `task_id`, `title`, `status`, `details` and `output` as one `rich_text`
 *     each, `sources` as URL source elements. A plan (a `plan_update` came, or
 *     the module shows tasks as a plan) is one `plan` block holding them
 *     (https://docs.slack.dev/reference/block-kit/blocks/plan-block).
 *   - The answer's text goes beside them in a `markdown` block
 *     (https://docs.slack.dev/reference/block-kit/blocks/markdown-block): a message
 *     with blocks shows its blocks, and its `text` only in notifications
 *     (https://docs.slack.dev/reference/methods/chat.postMessage).
 *   - Limits: at most 50 blocks a message (https://docs.slack.dev/block-kit); the
 *     markdown blocks of one payload at most 12,000 characters together (a
 *     message of the reply is at most PART_CHARS, the same 12,000); chat.update's
 *     `text` at most 4,000 (`msg_too_long`), so the notification text is cut.
 *     Task cards that would pass 50 blocks go into one plan block instead; with
 *     no room for even that, each task is a line with a status mark.
 */
import type { PlanUpdateChunk, TaskDisplayMode, TaskStatus, TaskUpdateChunk } from './tasks.js';

export type Block = Record<string, unknown>;

/** Block Kit: "You can include up to 50 blocks in each message". */
export const MESSAGE_BLOCKS_MAX = 50;
/** chat.update: "The text field cannot exceed 4,000 characters." */
export const UPDATE_TEXT_MAX = 4_000;
/** Markdown block: the markdown blocks of one payload hold at most 12,000 characters together. */
export const MARKDOWN_BLOCKS_MAX = 12_000;
/** A plan's title when the turn gave none (the tasks were too many for cards of their own). */
export const TASKS_TITLE = 'Tasks';

const MARK: Record<TaskStatus, string> = { pending: '◻️', in_progress: '⏳', complete: '✅', error: '⚠️' };

function richText(text: string): Block {
  return { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text }] }] };
}

/** One task as a `task_card` block. */
export function taskCard(task: TaskUpdateChunk): Block {
  return {
    type: 'task_card',
    task_id: task.id,
    title: task.title,
    status: task.status,
    ...(task.details ? { details: richText(task.details) } : {}),
    ...(task.output ? { output: richText(task.output) } : {}),
    ...(task.sources?.length ? { sources: task.sources } : {}),
  };
}

/** Each task as a line with its status mark (no room for blocks). */
export function taskLines(tasks: readonly TaskUpdateChunk[], plan?: string): string {
  const lines = tasks.map((t) => `${MARK[t.status]} ${t.title}`);
  return [...(plan ? [`*${plan}*`] : []), ...lines].join('\n');
}

/**
 * The blocks that show `list` (a board's final(): the plan, then each task in
 * its last state) within `room` blocks; `lines` when not even one block fits.
 */
export function taskBlocks(
  list: ReadonlyArray<TaskUpdateChunk | PlanUpdateChunk>,
  mode: TaskDisplayMode | undefined,
  room: number,
): { blocks: Block[]; lines?: string } {
  const tasks = list.filter((c): c is TaskUpdateChunk => c.type === 'task_update');
  const plan = list.find((c): c is PlanUpdateChunk => c.type === 'plan_update');
  if (tasks.length === 0 && !plan) return { blocks: [] };
  if (room < 1) return { blocks: [], lines: taskLines(tasks, plan?.title) };
  if (plan || mode === 'plan' || tasks.length > room) {
    return { blocks: [{ type: 'plan', title: plan?.title ?? TASKS_TITLE, tasks: tasks.map(taskCard) }] };
  }
  return { blocks: tasks.map(taskCard) };
}

/** A message's text where `max` characters are allowed (the notification text beside blocks), cut with an ellipsis. */
export function fallbackText(text: string, max: number): string {
  if (text.length <= max) return text;
  let at = max - 1;
  const code = text.charCodeAt(at - 1);
  if (code >= 0xd800 && code <= 0xdbff) at -= 1;
  return `${text.slice(0, at)}…`;
}

/**
 * A message of the reply with blocks: its tasks (when it carries them), its
 * text as a markdown block, the bot's own blocks (on the last). `text` is the
 * notification text, cut to `textMax`.
 */
export function messageBlocks(o: {
  text: string;
  tasks?: ReadonlyArray<TaskUpdateChunk | PlanUpdateChunk>;
  mode?: TaskDisplayMode | undefined;
  extra?: readonly Block[] | undefined;
  textMax: number;
}): { text: string; blocks: Block[] } {
  const extra = o.extra ?? [];
  // The markdown block and the bot's blocks come first; the tasks take what is left of the 50.
  const shown = taskBlocks(o.tasks ?? [], o.mode, MESSAGE_BLOCKS_MAX - 1 - extra.length);
  // Lines only where they fit beside the text in the markdown blocks' 12,000 characters.
  const lined = shown.lines ? `${shown.lines}\n\n${o.text}` : o.text;
  const text = lined.length <= MARKDOWN_BLOCKS_MAX ? lined : o.text;
  const blocks = [...shown.blocks, ...(text ? [{ type: 'markdown', text }] : []), ...extra];
  return { text: fallbackText(text, o.textMax), blocks };
}
