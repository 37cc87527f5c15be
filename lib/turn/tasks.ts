/**
 * Tasks and plans in a streamed reply: Slack's own stream chunks
 * (https://docs.slack.dev/reference/methods/chat.startStream, `chunks`;
 * `@slack/types` TaskUpdateChunk, PlanUpdateChunk, MarkdownTextChunk), which
 * a turn may yield beside its text, and the board that keeps each task's
 * last state for the message that shows it. Pure.
 *
 * A task is shown by its id: a later update of the same id changes that
 * card (or that row of the plan) in place. So the board can always end a
 * message well: each task that is still pending or in progress is closed,
 * `complete` when the turn answered, `error` where the run gave up, and a
 * copy that takes a turn over sends every task's last state to the message
 * the dead run left open.
 */

export type TaskStatus = 'pending' | 'in_progress' | 'complete' | 'error';

/** A source a task cites (`@slack/types` URLSourceElement). */
export interface TaskSource {
  type: 'url';
  url: string;
  text: string;
}

export interface TaskUpdateChunk {
  type: 'task_update';
  /** The same on every update of one task (and on every run of the turn: a taker-over closes tasks by id). */
  id: string;
  title: string;
  status: TaskStatus;
  details?: string;
  output?: string;
  sources?: TaskSource[];
}

export interface PlanUpdateChunk {
  type: 'plan_update';
  title: string;
}

export interface MarkdownTextChunk {
  type: 'markdown_text';
  text: string;
}

/** What a turn's stream may yield besides plain text. */
export type ReplyChunk = TaskUpdateChunk | PlanUpdateChunk | MarkdownTextChunk;

/** How Slack shows a stream's tasks: cards between the text (`timeline`, Slack's default) or one plan block (`plan`). */
export type TaskDisplayMode = 'timeline' | 'plan';

export const TASK_DISPLAY_MODES: readonly TaskDisplayMode[] = ['timeline', 'plan'];
const STATUSES: readonly string[] = ['pending', 'in_progress', 'complete', 'error'];

/** A chunk as the turn yielded it, checked: the chunk, or what is wrong with it (the turn's bug: a TypeError). */
export function readChunk(value: unknown): ReplyChunk | { wrong: string } {
  const c = value as Record<string, unknown> | null;
  if (typeof c !== 'object' || c === null) return { wrong: `a ${c === null ? 'null' : typeof c}` };
  const str = (k: string) => typeof c[k] === 'string' && (c[k] as string).length > 0;
  switch (c.type) {
    case 'markdown_text':
      return typeof c.text === 'string' ? { type: 'markdown_text', text: c.text } : { wrong: 'a markdown_text chunk without a string `text`' };
    case 'plan_update':
      return str('title') ? { type: 'plan_update', title: c.title as string } : { wrong: 'a plan_update chunk without a `title`' };
    case 'task_update': {
      if (!str('id') || !str('title')) return { wrong: 'a task_update chunk without an `id` and a `title`' };
      if (typeof c.status !== 'string' || !STATUSES.includes(c.status)) {
        return { wrong: `a task_update chunk whose status is ${JSON.stringify(c.status)} (expected one of ${STATUSES.join(', ')})` };
      }
      const task: TaskUpdateChunk = { type: 'task_update', id: c.id as string, title: c.title as string, status: c.status as TaskStatus };
      if (typeof c.details === 'string') task.details = c.details;
      if (typeof c.output === 'string') task.output = c.output;
      if (Array.isArray(c.sources)) task.sources = c.sources as TaskSource[];
      return task;
    }
    default:
      return { wrong: `a chunk of type ${JSON.stringify(c.type)} (expected markdown_text, task_update or plan_update)` };
  }
}

/** An update ready to go out, in the order it was made (timeline mode interleaves task cards with the text). */
export type Pending = { kind: 'text'; text: string } | { kind: 'chunk'; chunk: TaskUpdateChunk | PlanUpdateChunk };

export class TaskBoard {
  readonly #tasks = new Map<string, TaskUpdateChunk>();
  #plan: PlanUpdateChunk | undefined;
  /** Updates not yet sent, oldest first; a task is pending at most once (its newest state, at its first place). */
  #unsent: Array<TaskUpdateChunk | PlanUpdateChunk> = [];
  readonly #listeners = new Set<() => void>();

  /** Anything a stream must show: a task or a plan title. */
  get any(): boolean {
    return this.#tasks.size > 0 || this.#plan !== undefined;
  }

  get unsent(): boolean {
    return this.#unsent.length > 0;
  }

  /** Tasks still pending or in progress. */
  get open(): TaskUpdateChunk[] {
    return [...this.#tasks.values()].filter((t) => t.status === 'pending' || t.status === 'in_progress');
  }

  update(chunk: TaskUpdateChunk | PlanUpdateChunk): void {
    if (chunk.type === 'plan_update') {
      this.#plan = chunk;
      this.#unsent = this.#unsent.filter((c) => c.type !== 'plan_update');
      this.#unsent.unshift(chunk);
    } else {
      // Details, output and sources given once stay with the task (Slack's card keeps them too).
      const merged = { ...this.#tasks.get(chunk.id), ...chunk };
      this.#tasks.set(chunk.id, merged);
      const at = this.#unsent.findIndex((c) => c.type === 'task_update' && c.id === chunk.id);
      if (at >= 0) this.#unsent[at] = merged;
      else this.#unsent.push(merged);
    }
    for (const listener of [...this.#listeners]) listener();
  }

  /** Resolves at the next update (the writer sends it, paced, while the turn's text is slow to come). */
  changed(): { promise: Promise<void>; cancel(): void } {
    let listener = () => {};
    const promise = new Promise<void>((resolve) => {
      listener = () => {
        this.#listeners.delete(listener);
        resolve();
      };
      this.#listeners.add(listener);
    });
    return { promise, cancel: () => this.#listeners.delete(listener) };
  }

  /** The updates not yet sent, taken. */
  take(): Array<TaskUpdateChunk | PlanUpdateChunk> {
    const out = this.#unsent;
    this.#unsent = [];
    return out;
  }

  /** Every open task closed as `status`: the reply is whole (`complete`) or the run gave up (`error`). */
  close(status: 'complete' | 'error'): void {
    for (const task of this.open) this.update({ ...task, status });
  }

  /** The plan and every task's last state: what a taker-over sends to the message a dead run left open. */
  final(): Array<TaskUpdateChunk | PlanUpdateChunk> {
    return [...(this.#plan ? [this.#plan] : []), ...this.#tasks.values()];
  }
}

/** A task update for `ctx.step(name, fn, { task })`: the step's name is its id, the same on every run. */
export function stepTask(name: string, task: string | { title: string; details?: string }, status: TaskStatus): TaskUpdateChunk {
  const t = typeof task === 'string' ? { title: task } : task;
  return { type: 'task_update', id: name, title: t.title, status, ...(t.details ? { details: t.details } : {}) };
}
