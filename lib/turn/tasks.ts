/**
 * Tasks, plans and blocks in a streamed reply: Slack's own stream chunks
 * (https://docs.slack.dev/reference/methods/chat.appendStream, "Using the chunks
 * parameter": markdown_text, task_update, plan_update "or blocks chunks";
 * `@slack/types` 3.2 chunk.d.ts), which a turn may yield beside its text, and the
 * board that keeps them, in the order they were yielded, for the message that shows them. Pure.
 *
 * A task is shown by its id: a later update of the same id changes that
 * card (or that row of the plan) in place. Its `details`, `output` and
 * `sources` are deltas: Slack adds each update's to what the card shows (its
 * own SDK's example sends a second `details` of "\n- Pretending this was
 * obvious", python-slack-sdk 3.40.0's release notes), so each goes to Slack
 * once, as the turn yielded it; the board keeps them joined, for a message
 * that shows the task whole (a post's task card, an update's blocks). So the
 * board can always end a message well: each task that is still pending or in
 * progress is closed, `complete` when the turn answered, `error` where the
 * run gave up, and a copy that takes a turn over ends every task the message
 * the dead run left open shows.
 *
 * Order: each chunk not yet sent keeps where in the reply's text it was yielded
 * (`reached`), and a stream call puts it there among its text (open-stream.ts).
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

/** Blocks in a stream, where they were yielded (`@slack/types` BlocksChunk: "Maximum of 50 blocks"). */
export interface BlocksChunk {
  type: 'blocks';
  blocks: Record<string, unknown>[];
}

/** A blocks chunk holds at most this many blocks (`@slack/types` 3.2 BlocksChunk; Slack's changelog 2026-04-16). */
export const BLOCKS_CHUNK_MAX = 50;

/** What a turn's stream may yield besides plain text. */
export type ReplyChunk = TaskUpdateChunk | PlanUpdateChunk | MarkdownTextChunk | BlocksChunk;

/** What the board holds and a stream call sends as a chunk (text goes as markdown_text). */
export type BoardChunk = TaskUpdateChunk | PlanUpdateChunk | BlocksChunk;

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
    case 'blocks': {
      const blocks = c.blocks;
      const isBlock = (b: unknown) => typeof b === 'object' && b !== null && typeof (b as { type?: unknown }).type === 'string';
      if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > BLOCKS_CHUNK_MAX || !blocks.every(isBlock)) {
        return { wrong: `a blocks chunk whose \`blocks\` is not 1 to ${BLOCKS_CHUNK_MAX} blocks, each with a \`type\`` };
      }
      return { type: 'blocks', blocks: blocks as Record<string, unknown>[] };
    }
    default:
      return { wrong: `a chunk of type ${JSON.stringify(c.type)} (expected markdown_text, task_update, plan_update or blocks)` };
  }
}

/** A chunk not yet sent, and where in the reply's text it was yielded (characters of text before it). */
export interface Unsent {
  chunk: BoardChunk;
  at: number;
}

/** Two deltas of one field joined: Slack adds each to what it shows. */
function joined<T extends string | TaskSource[]>(a: T | undefined, b: T | undefined): T | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return (typeof a === 'string' ? a + (b as string) : [...(a as TaskSource[]), ...(b as TaskSource[])]) as T;
}

/** `next` after `prev`: the newest title and status, the deltas (details, output, sources) joined. */
function after(prev: TaskUpdateChunk | undefined, next: TaskUpdateChunk): TaskUpdateChunk {
  if (!prev) return next;
  const out: TaskUpdateChunk = { type: 'task_update', id: next.id, title: next.title, status: next.status };
  const details = joined(prev.details, next.details);
  const output = joined(prev.output, next.output);
  const sources = joined(prev.sources, next.sources);
  if (details !== undefined) out.details = details;
  if (output !== undefined) out.output = output;
  if (sources !== undefined) out.sources = sources;
  return out;
}

export class TaskBoard {
  /** Each task as a whole message shows it: its deltas joined. */
  readonly #tasks = new Map<string, TaskUpdateChunk>();
  #plan: PlanUpdateChunk | undefined;
  /** The blocks chunks yielded, in order. */
  readonly #blocks: BlocksChunk[] = [];
  /** Chunks not yet sent, in the order yielded; a task is pending at most once (its updates joined, at its first place). */
  #unsent: Unsent[] = [];
  /** Characters of the reply's text read so far: where a chunk yielded now goes. */
  #at = 0;
  readonly #listeners = new Set<() => void>();

  /** Anything a stream must show: a task, a plan title or blocks. */
  get any(): boolean {
    return this.#tasks.size > 0 || this.#plan !== undefined || this.#blocks.length > 0;
  }

  get unsent(): boolean {
    return this.#unsent.length > 0;
  }

  /** Tasks still pending or in progress. */
  get open(): TaskUpdateChunk[] {
    return [...this.#tasks.values()].filter((t) => t.status === 'pending' || t.status === 'in_progress');
  }

  /** Every block the turn yielded in blocks chunks, in order: what a posted reply shows of them. */
  get blocks(): Record<string, unknown>[] {
    return this.#blocks.flatMap((c) => c.blocks);
  }

  /** The reply's text has reached `chars` characters: a chunk yielded from now on goes after them. */
  reached(chars: number): void {
    this.#at = chars;
  }

  update(chunk: BoardChunk): void {
    if (chunk.type === 'plan_update') {
      this.#plan = chunk;
      // The plan's title leads the next call, wherever it was yielded: it names the block the tasks are in.
      this.#unsent = this.#unsent.filter((u) => u.chunk.type !== 'plan_update');
      this.#unsent.unshift({ chunk, at: 0 });
    } else if (chunk.type === 'blocks') {
      this.#blocks.push(chunk);
      this.#unsent.push({ chunk, at: this.#at });
    } else {
      this.#tasks.set(chunk.id, after(this.#tasks.get(chunk.id), chunk));
      const pending = this.#unsent.find((u) => u.chunk.type === 'task_update' && u.chunk.id === chunk.id);
      if (pending) pending.chunk = after(pending.chunk as TaskUpdateChunk, chunk);
      else this.#unsent.push({ chunk, at: this.#at });
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

  /** The chunks not yet sent, taken, each with where it was yielded. */
  take(): Unsent[] {
    const out = this.#unsent;
    this.#unsent = [];
    return out;
  }

  /** Every open task closed as `status` (no delta: what it shows stays): the reply is whole (`complete`) or the run gave up (`error`). */
  close(status: 'complete' | 'error'): void {
    for (const task of this.open) this.update({ type: 'task_update', id: task.id, title: task.title, status });
  }

  /** The plan and every task whole, in its last state: what a message that shows them all at once (blocks) is given. */
  final(): Array<TaskUpdateChunk | PlanUpdateChunk> {
    return [...(this.#plan ? [this.#plan] : []), ...this.#tasks.values()];
  }
}

/** Each task's id, title and status only: what ends the cards of a stream that showed their deltas already (a stop after a takeover). */
export function statusOnly(list: ReadonlyArray<TaskUpdateChunk | PlanUpdateChunk>): Array<TaskUpdateChunk | PlanUpdateChunk> {
  return list.map((c) => (c.type === 'plan_update' ? c : { type: 'task_update', id: c.id, title: c.title, status: c.status }));
}

/**
 * A task update for `ctx.step(name, fn, { task })`: the step's name is its id, the same on every run. Its
 * details go with its first update (`in_progress`) only: Slack adds each update's details to the card's.
 */
export function stepTask(name: string, task: string | { title: string; details?: string }, status: TaskStatus): TaskUpdateChunk {
  const t = typeof task === 'string' ? { title: task } : task;
  return { type: 'task_update', id: name, title: t.title, status, ...(t.details && status === 'in_progress' ? { details: t.details } : {}) };
}
