/**
 * A turn's stream as the writer reads it: text, the task and plan chunks put on the turn's board, or "the
 * board changed" (a task moved while no text came), with all the text read so far.
 */
import { readChunk, type ReplyChunk, type TaskBoard } from './tasks.js';

/** What a turn's stream yields: text, or Slack's own chunks (lib/turn/tasks.ts). */
export type ReplyItem = string | ReplyChunk;

/** A turn's stream as the writer reads it: text, the task chunks put on the board, or "the board changed". */
export class Feed {
  readonly #iterator: AsyncIterator<ReplyItem>;
  #next: Promise<IteratorResult<ReplyItem>> | undefined;
  /** All the text read so far. */
  text = '';
  /** How many text chunks were read so far (empty ones too). */
  count = 0;

  constructor(
    source: AsyncIterable<ReplyItem>,
    private readonly board: TaskBoard,
  ) {
    this.#iterator = source[Symbol.asyncIterator]();
  }

  /** The next text; `board` when a task changed (or `wakeInMs` passed) before it; `done` at the end. */
  async next(wakeInMs?: number): Promise<{ kind: 'text'; text: string } | { kind: 'board' } | { kind: 'done' }> {
    for (;;) {
      this.#next ??= this.#iterator.next();
      const change = this.board.changed();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const woken = new Promise<{ woke: true }>((resolve) => {
        if (wakeInMs !== undefined) timer = setTimeout(() => resolve({ woke: true }), wakeInMs);
      });
      const got = await Promise.race([this.#next.then((r) => ({ r })), change.promise.then(() => ({ woke: true as const })), woken]).finally(() => {
        change.cancel();
        clearTimeout(timer);
      });
      if ('woke' in got) return { kind: 'board' };
      this.#next = undefined;
      if (got.r.done) return { kind: 'done' };
      const text = this.#text(got.r.value);
      if (text === undefined) return { kind: 'board' };
      this.text += text;
      this.count += 1;
      // A chunk yielded from now on comes after this text.
      this.board.reached(this.text.length);
      return { kind: 'text', text };
    }
  }

  /** An item's text; a task, plan or blocks chunk goes on the board (undefined). A malformed chunk is the turn's bug. */
  #text(item: ReplyItem): string | undefined {
    if (typeof item === 'string') return item;
    const chunk = readChunk(item);
    if ('wrong' in chunk)
      throw new TypeError(`the turn yielded ${chunk.wrong}: yield text, or Slack's chunks (markdown_text, task_update, plan_update, blocks)`);
    if (chunk.type === 'markdown_text') return chunk.text;
    this.board.update(chunk);
    return undefined;
  }

  /**
   * Read until a stream has something to start with: text that is not empty, or a task not yet sent (Slack's
   * docs want markdown_text or chunks on the start). The text read so far; '' with no task unsent: nothing came.
   */
  async opening(): Promise<string> {
    for (;;) {
      const next = await this.next();
      if (next.kind === 'done') break;
      if (next.kind === 'board') {
        if (this.board.unsent) break;
        continue;
      }
      if (this.text !== '') break;
    }
    return this.text;
  }

  /** The stream read to its end: all its text and how many text chunks it had (those read before included). */
  async rest(): Promise<{ text: string; count: number }> {
    while ((await this.next()).kind !== 'done');
    return { text: this.text, count: this.count };
  }

  async return(): Promise<void> {
    await this.#iterator.return?.();
  }
}

/** The whole of `chunks` (tasks put on `board`), and how many text chunks there were. */
export function collect(chunks: AsyncIterable<ReplyItem>, board: TaskBoard): Promise<{ text: string; count: number }> {
  return new Feed(chunks, board).rest();
}
