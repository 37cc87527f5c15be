/**
 * Writing a turn's reply into the thread: posted, or streamed as it is
 * written, in as many messages as Slack's limits need (lib/turn/parts.ts),
 * each with the turn's metadata; the last one says the reply is whole.
 *
 *   - Every call goes through the turn's fenced client: it leaves only while
 *     this copy holds the turn (the fence is in the rate-limit fetch).
 *   - A streamed message's ts goes into the lease the moment Slack answers
 *     chat.startStream, so a taker-over completes *these* messages (stop what
 *     is still open, then chat.update each with the new, complete answer)
 *     instead of adding a second reply.
 *   - Appends are batched, at most one a second (chat.appendStream is Tier 4
 *     for the whole app); the rest goes with the stop. chat.startStream and
 *     chat.stopStream are Tier 2: while their window is closed the reply is posted.
 *   - Slack's stream errors (https://docs.slack.dev/reference/methods/chat.appendStream):
 *     `message_not_in_streaming_state` (Slack closed it after about 5 minutes):
 *     finished with chat.update; `stopped_by_user` (the person pressed Stop):
 *     the turn is answered as far as it got, nothing more is written;
 *     `channel_type_not_supported`, `missing_recipient_*`, `streaming_mode_mismatch`
 *     at the start (nothing visible yet): the reply is posted instead.
 */
import type { WebClient } from '@slack/web-api';
import { partMetadata, PART_CHARS, splitText } from './parts.js';
import { rollover, startOf, type Rollover } from './split.js';
import { messageBlocks, UPDATE_TEXT_MAX } from './task-blocks.js';
import { readChunk, TaskBoard, type PlanUpdateChunk, type ReplyChunk, type TaskDisplayMode, type TaskUpdateChunk } from './tasks.js';
import type { ReplyTarget } from './thread.js';

/** What a turn's stream yields: text, or Slack's own chunks (lib/turn/tasks.ts). */
export type ReplyItem = string | ReplyChunk;

export interface StreamTarget extends ReplyTarget {
  /** Outside a DM Slack wants the recipient's user and team ids (the team is the user's own, `user_team`, for Slack Connect). */
  recipientUser?: string | undefined;
  recipientTeam?: string | undefined;
}

/** What the writer needs of the turn's lease (absent for a turn whose claim failed open). */
export interface PartsLedger {
  /** Messages an earlier run (or this one) of the turn wrote: complete these, never add a second reply. */
  readonly parts: readonly string[];
  /** Record the reply's messages so far (one store command), before anything is appended to the newest. */
  recordParts(ts: readonly string[]): Promise<void>;
  /** Slack has confirmed this many characters of the reply (kept with the next renewal, at no cost). */
  confirmed(chars: number): void;
}

export interface WriterOptions {
  /** Whether Slack's window for a method is closed now (the rate-limit layer's word). */
  closed: (method: string) => boolean;
  /** The least time between two appends. @default 1000 */
  appendEveryMs?: number;
  /** @default PART_CHARS */
  partChars?: number;
  /** Channels where Slack refused a stream as unsupported (one set per copy): their replies are posted from then on. */
  noStream?: Set<string>;
  /** The turn's tasks (its yielded task chunks and its steps shown as tasks). @default a board of its own */
  tasks?: TaskBoard;
  /** `task_display_mode` on chat.startStream; set, the stream sends `chunks` from its first call. */
  taskDisplayMode?: TaskDisplayMode | undefined;
  now?: () => number;
}

/** What the reply came to, for logs and the status page. */
export interface WriteOutcome {
  /** The reply's first message. */
  ts: string | undefined;
  /** Every message of the reply, in order. */
  parts: string[];
  how: 'streamed' | 'posted' | 'completed' | 'updated' | 'stopped';
  chunks: number;
}

export function slackError(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Start errors after which the same text can simply be posted: nothing was made visible. */
const CANNOT_STREAM_HERE = new Set([
  'channel_type_not_supported',
  'missing_recipient_user_id',
  'missing_recipient_team_id',
  'streaming_mode_mismatch',
  'not_allowed_token_type',
]);

type Blocks = readonly Record<string, unknown>[] | undefined;

/** What a message an earlier run wrote says when a shorter answer no longer needs it. */
const CONTINUED = '_(continued above)_';
/** chat.postMessage truncates `text` past 40,000 characters (https://docs.slack.dev/reference/methods/chat.postMessage). */
const POST_TEXT_MAX = 40_000;

export class ReplyWriter {
  /** The stream this writer has open (started, not yet stopped). */
  #streaming: string | undefined;
  /** A stream Slack closed under this run (past its life): its ts and the text Slack holds, until the run rewrites it. */
  #stale: { ts: string; text: string } | undefined;
  readonly #every: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #board: TaskBoard;
  /** The open stream sends `chunks` (it began so: Slack wants one mode per stream, `streaming_mode_mismatch`). */
  #chunked = false;

  constructor(
    private readonly client: WebClient,
    private readonly target: StreamTarget,
    private readonly ledger: PartsLedger | undefined,
    private readonly o: WriterOptions,
  ) {
    this.#every = o.appendEveryMs ?? 1000;
    this.#max = o.partChars ?? PART_CHARS;
    this.#now = o.now ?? Date.now;
    this.#board = o.tasks ?? new TaskBoard();
  }

  /**
   * The message this run left unfinished, if any: a stream it has open, or one Slack closed before the run
   * could finish it. A turn that fails closes it (interrupt).
   */
  get open(): string | undefined {
    return this.#streaming ?? this.#stale?.ts;
  }

  /** Whether a stream may start now (not throttled, not refused in this channel). */
  #canStream(): boolean {
    return !(this.o.noStream?.has(this.target.channel) || this.o.closed('chat.startStream') || this.o.closed('chat.stopStream'));
  }

  /** A call's text (and, in a chunked stream, the task updates not yet sent) as Slack takes it. */
  #body(text: string): Record<string, unknown> {
    if (!this.#chunked) return text ? { markdown_text: text } : {};
    const list: ReplyChunk[] = [...this.#board.take(), ...(text ? [{ type: 'markdown_text' as const, text }] : [])];
    return list.length > 0 ? { chunks: list } : {};
  }

  /**
   * A run that failed mid-stream closes its open message: each open task
   * marked `error` (this run gave up on it) and `note` added; the next run rewrites it.
   */
  async interrupt(note: string): Promise<void> {
    const ts = this.#streaming;
    const stale = this.#stale;
    this.#board.close('error');
    if (ts) {
      await this.client.chat.stopStream({ channel: this.target.channel, ts, ...this.#body(note) } as never);
      this.#streaming = undefined;
    } else if (stale) {
      // Slack closed the stream, so it takes no chunks: an update with the tasks as blocks, the text as Slack holds it.
      const text = stale.text.length + note.length <= this.#max ? stale.text + note : stale.text;
      const tasks = this.#board.any ? this.#board.final() : [];
      await this.client.chat.update({ channel: this.target.channel, ts: stale.ts, ...this.#withBlocks(text, tasks, undefined, 'update') } as never);
      this.#stale = undefined;
    }
  }

  /** A whole text: posted (or, when an earlier run of the turn wrote messages, written into them). */
  async writeText(text: string, blocks?: Blocks): Promise<WriteOutcome> {
    const earlier = this.ledger?.parts ?? [];
    if (earlier.length > 0) return { ...(await this.complete(earlier, text, blocks)), how: 'completed', chunks: 1 };
    // Steps shown as tasks stream when a stream can start; else the post shows them as blocks.
    if (this.#board.any && this.#canStream()) return this.#stream(once(text), blocks);
    return { ...(await this.post(text, blocks)), chunks: 1 };
  }

  /** Write `chunks` (the first may be the late note) into the thread. */
  async write(chunks: AsyncIterable<ReplyItem>, blocks?: Blocks): Promise<WriteOutcome> {
    const earlier = this.ledger?.parts ?? [];
    if (earlier.length > 0) {
      const { text, count } = await collect(chunks, this.#board);
      return { ...(await this.complete(earlier, text, blocks)), how: 'completed', chunks: count };
    }
    if (!this.#canStream()) {
      const { text, count } = await collect(chunks, this.#board);
      return { ...(await this.post(text, blocks)), chunks: count };
    }
    return this.#stream(chunks, blocks);
  }

  /**
   * The whole text as posts, split within Slack's limits, the metadata on each, `final` on the last. The reply
   * is whole, so its tasks are too: each open one closed `complete`, all of them on the reply's first message
   * (chat.postMessage takes no chunks: they go as blocks, lib/turn/task-blocks.ts). `from` > 0: the posts go on
   * after messages an earlier run wrote, which carry the tasks.
   */
  async post(text: string, blocks?: Blocks, from = 0): Promise<Omit<WriteOutcome, 'chunks'>> {
    const pieces = splitText(text, this.#max);
    const parts: string[] = [];
    const tasks = from === 0 ? this.#finalTasks() : [];
    for (const [i, piece] of pieces.entries()) {
      const last = i === pieces.length - 1;
      const result = await this.client.chat.postMessage({
        channel: this.target.channel,
        thread_ts: this.target.threadTs,
        ...this.#withBlocks(piece, i === 0 ? tasks : [], last ? blocks : undefined, 'post'),
        metadata: partMetadata(this.target.eventId, from + i, last),
      } as never);
      if (result.ts) parts.push(result.ts);
    }
    return { ts: parts[0], parts, how: 'posted' };
  }

  /** The board's tasks in their last state, the open ones closed `complete` (the reply is whole); none when there are none. */
  #finalTasks(): Array<TaskUpdateChunk | PlanUpdateChunk> {
    if (!this.#board.any) return [];
    this.#board.close('complete');
    return this.#board.final();
  }

  /**
   * A message's text as Slack takes it: plain (`text` for a post, `markdown_text` for an update) when it has
   * no blocks; else the tasks it carries, the text as a markdown block and the bot's blocks, with `text`
   * for notifications cut to the call's limit (a message with blocks shows the blocks).
   */
  #withBlocks(piece: string, tasks: ReadonlyArray<TaskUpdateChunk | PlanUpdateChunk>, extra: Blocks, call: 'post' | 'update'): Record<string, unknown> {
    if (tasks.length === 0 && !extra) return call === 'update' ? { markdown_text: piece } : { text: piece };
    return messageBlocks({ text: piece, tasks, mode: this.o.taskDisplayMode, extra, textMax: call === 'update' ? UPDATE_TEXT_MAX : POST_TEXT_MAX });
  }

  /**
   * Make `earlier` hold `text` for good: each message stopped if Slack still
   * has it open, then rewritten with its piece (`markdown_text`, as streamed);
   * what does not fit is posted after them.
   */
  async complete(earlier: readonly string[], text: string, blocks?: Blocks): Promise<Omit<WriteOutcome, 'chunks'>> {
    const pieces = splitText(text, this.#max);
    const parts: string[] = [];
    // The tasks end in their last state: with the stop of the message a dead or failed run left open (the newest),
    // so none spins while the text is rewritten, then as blocks in the first message's update (an update's text
    // without blocks removes a message's blocks, the stream's task cards among them; chat.update takes no chunks).
    const tasks = this.#finalTasks();
    for (const [i, ts] of earlier.entries()) {
      const piece = pieces[i];
      const last = i === pieces.length - 1 || (piece === undefined && i === earlier.length - 1);
      await this.#finishOpen(ts, i === earlier.length - 1 ? tasks : []);
      // chat.update refuses markdown_text beside blocks (markdown_text_conflict): with blocks the piece goes
      // as a markdown block, and as `text` (at most 4,000 characters) for notifications.
      await this.client.chat.update({
        channel: this.target.channel,
        ts,
        // A message a shorter answer no longer needs says so; it cannot be left half-written.
        ...this.#withBlocks(piece ?? CONTINUED, i === 0 ? tasks : [], last && piece !== undefined ? blocks : undefined, 'update'),
        metadata: partMetadata(this.target.eventId, i, piece !== undefined && last),
      } as never);
      if (this.#stale?.ts === ts) this.#stale = undefined;
      parts.push(ts);
    }
    if (pieces.length > earlier.length) {
      const rest = await this.post(pieces.slice(earlier.length).join(''), blocks, earlier.length);
      parts.push(...rest.parts);
    }
    return { ts: parts[0], parts, how: 'updated' };
  }

  /**
   * Stop a message Slack may still have open, with `tasks` in their last
   * state when there are any (a stream that began as text takes none:
   * `streaming_mode_mismatch`, then it is stopped plain); already stopped
   * (by us, by Slack or by the person) is fine.
   */
  async #finishOpen(ts: string, tasks: ReadonlyArray<TaskUpdateChunk | PlanUpdateChunk> = []): Promise<void> {
    const stop = (extra: Record<string, unknown>) => this.client.chat.stopStream({ channel: this.target.channel, ts, ...extra } as never);
    const done = await stop(tasks.length > 0 ? { chunks: tasks } : {}).then(
      () => true,
      (error: unknown) => {
        const code = slackError(error);
        if (code === 'streaming_mode_mismatch' && tasks.length > 0) return false;
        if (code !== 'message_not_in_streaming_state' && code !== 'stopped_by_user' && code !== 'streaming_mode_mismatch') throw error;
        return true;
      },
    );
    if (!done) await this.#finishOpen(ts);
  }

  /**
   * The person pressed Stop on `ts`: Slack takes no more chunks there, and the call it refused may have carried
   * task updates, so an update gives the message the whole board as blocks (each open task `status`: `error`
   * when the answer was cut short, `complete` when it was whole) beside `held`, the text Slack kept. Best
   * effort: the answer stands as the person left it, and a failed update must not make the turn run again.
   */
  async #tasksAfterStop(ts: string, held: string, status: 'complete' | 'error'): Promise<void> {
    if (!this.#chunked || !this.#board.any) return;
    this.#board.close(status);
    this.#board.take();
    await this.client.chat
      .update({ channel: this.target.channel, ts, ...this.#withBlocks(held, this.#board.final(), undefined, 'update') } as never)
      .catch(() => undefined);
  }

  async #stream(chunks: AsyncIterable<ReplyItem>, blocks: Blocks): Promise<WriteOutcome> {
    const { target, client } = this;
    const board = this.#board;
    const feed = new Feed(chunks, board);
    let count = 0;
    let pending = '';
    // The first call carries text or tasks: skip empty chunks (Slack's docs want markdown_text or chunks on the start).
    for (;;) {
      const next = await feed.next();
      if (next.kind === 'done') break;
      if (next.kind === 'board') {
        if (board.unsent) break;
        continue;
      }
      count += 1;
      pending += next.text;
      if (pending !== '') break;
    }
    if (pending === '' && !board.unsent) return { ts: undefined, parts: [], how: 'streamed', chunks: count };
    // One mode for the whole stream: chunks when tasks may come (the bot set a display mode) or came already.
    this.#chunked = this.o.taskDisplayMode !== undefined || board.any;

    const parts: string[] = [];
    /** The open message's text as Slack has it: a code block reopened at its start, and closed at its end, included. */
    let held = '';
    let full = pending;
    /** Characters of the reply Slack has accepted (a reopened or closed code block's markers not counted). */
    let sent = 0;
    let lastAppend = this.#now();
    const startPart = async (head: string, text: string): Promise<'started' | 'cannot'> => {
      try {
        const started = await client.chat.startStream({
          channel: target.channel,
          thread_ts: target.threadTs,
          ...this.#body(head + text),
          ...(this.o.taskDisplayMode ? { task_display_mode: this.o.taskDisplayMode } : {}),
          ...(target.recipientUser ? { recipient_user_id: target.recipientUser } : {}),
          ...(target.recipientTeam ? { recipient_team_id: target.recipientTeam } : {}),
        } as never);
        if (!started.ts) throw new Error('chat.startStream answered without a ts');
        parts.push(started.ts);
        this.#streaming = started.ts;
      } catch (error) {
        const code = slackError(error);
        if (parts.length === 0 && code && CANNOT_STREAM_HERE.has(code)) {
          if (code === 'channel_type_not_supported') this.o.noStream?.add(target.channel);
          return 'cannot';
        }
        throw error;
      }
      held = head + text;
      sent += text.length;
      await this.ledger?.recordParts(parts);
      this.ledger?.confirmed(sent);
      lastAppend = this.#now();
      return 'started';
    };

    const first = startOf('', pending, this.#max);
    if ((await startPart('', pending.slice(0, first.take))) === 'cannot') {
      const rest = await feed.rest();
      return { ...(await this.post(pending + rest.text, blocks)), chunks: count + rest.count };
    }
    pending = pending.slice(first.take);

    type Ended = 'expired' | 'stopped' | undefined;
    // Send `text` into the open message: an append, or (last) the stop with metadata, with the tasks not yet sent; `tail` closes a code block left open.
    const send = async (text: string, stop: { final: boolean } | undefined, tail = ''): Promise<Ended> => {
      const ts = parts[parts.length - 1]!;
      try {
        if (stop) {
          await client.chat.stopStream({
            channel: target.channel,
            ts,
            ...this.#body(text + tail),
            metadata: partMetadata(target.eventId, parts.length - 1, stop.final),
            ...(stop.final && blocks ? { blocks: blocks as never } : {}),
          } as never);
          this.#streaming = undefined;
        } else {
          await client.chat.appendStream({ channel: target.channel, ts, ...this.#body(text) } as never);
          lastAppend = this.#now();
        }
      } catch (error) {
        const code = slackError(error);
        if (code === 'message_not_in_streaming_state' || code === 'stopped_by_user') this.#streaming = undefined;
        if (code === 'message_not_in_streaming_state') {
          this.#stale = { ts, text: held };
          return 'expired';
        }
        if (code === 'stopped_by_user') return 'stopped';
        throw error;
      }
      held += text + tail;
      sent += text.length;
      this.ledger?.confirmed(sent);
      return undefined;
    };
    /** A task came to a stream that began as text: that message stops, and the reply goes on in a chunked one. */
    const toChunks = async (): Promise<Ended> => {
      const ended = await send('', { final: false });
      if (ended) return ended;
      this.#chunked = true;
      await startPart('', '');
      return undefined;
    };
    // Roll over before the limit: fill this message (closing a code block left open), stop it, start the next (reopening it).
    // A message started full (cut where it reads well) is stopped right there: `planned` says how. Not while a task is
    // open here: its card would be left spinning in a message that no longer streams (the text waits for the task).
    const next = () => (board.open.length === 0 ? rollover(held, pending, this.#max) : undefined);
    const roll = async (planned?: Rollover): Promise<Ended> => {
      for (let plan = planned ?? next(); plan; ) {
        const ended = await send(pending.slice(0, plan.take), { final: false }, plan.tail);
        if (ended) return ended;
        pending = pending.slice(plan.take);
        const start = startOf(plan.head, pending, this.#max);
        await startPart(plan.head, pending.slice(0, start.take));
        pending = pending.slice(start.take);
        plan = start.full ?? next();
      }
      return undefined;
    };

    // A first chunk longer than a message has filled this one: it rolls over before the next chunk is read.
    let ended: Ended = first.full ? await roll(first.full) : undefined;
    while (!ended) {
      const due = this.#every - (this.#now() - lastAppend);
      // Woken when an append falls due, if there is something it could send (text with room for it, or tasks).
      const fits = held.length + pending.length <= this.#max;
      const sendable = board.unsent || (pending !== '' && fits);
      const got = await feed.next(sendable ? Math.max(0, due) : undefined);
      if (got.kind === 'done') break;
      if (got.kind === 'text') {
        count += 1;
        full += got.value;
        pending += got.value;
      }
      // A task arrived in a stream that began as text: it goes on in a chunked message of its own.
      if (!this.#chunked && board.unsent) {
        ended = await toChunks();
        if (ended) break;
      }
      ended = await roll();
      if (ended || (pending === '' && !board.unsent) || this.#now() - lastAppend < this.#every) continue;
      // While a task is open, text that would overflow this message waits for it (roll).
      if (held.length + pending.length > this.#max) {
        if (!board.unsent) continue;
        ended = await send('', undefined);
        continue;
      }
      ended = await send(pending, undefined);
      if (!ended) pending = '';
    }
    if (ended === 'stopped') {
      // The person pressed Stop: the answer ends where Slack stopped it. No more text is written.
      await feed.return();
      await this.#tasksAfterStop(parts[parts.length - 1]!, held, 'error');
      return { ts: parts[0], parts, how: 'stopped', chunks: count };
    }
    if (ended === 'expired') {
      const rest = await feed.rest();
      return { ...(await this.complete(parts, full + rest.text, blocks)), chunks: count + rest.count };
    }
    // The reply is whole: a task still open is done with it.
    board.close('complete');
    ended = await roll();
    if (!ended && !this.#chunked && board.unsent) ended = await toChunks();
    if (!ended) ended = await send(pending, { final: true });
    if (ended === 'stopped') {
      await this.#tasksAfterStop(parts[parts.length - 1]!, held, 'complete');
      return { ts: parts[0], parts, how: 'stopped', chunks: count };
    }
    if (ended === 'expired') return { ...(await this.complete(parts, full, blocks)), chunks: count };
    return { ts: parts[0], parts, how: 'streamed', chunks: count };
  }
}

/** A turn's stream as the writer reads it: text, the task chunks put on the board, or "the board changed". */
class Feed {
  readonly #iterator: AsyncIterator<ReplyItem>;
  #next: Promise<IteratorResult<ReplyItem>> | undefined;

  constructor(
    source: AsyncIterable<ReplyItem>,
    private readonly board: TaskBoard,
  ) {
    this.#iterator = source[Symbol.asyncIterator]();
  }

  /** The next text; `board` when a task changed (or `wakeInMs` passed) before it; `done` at the end. */
  async next(wakeInMs?: number): Promise<{ kind: 'text'; value: string; text: string } | { kind: 'board' } | { kind: 'done' }> {
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
      return { kind: 'text', value: text, text };
    }
  }

  /** An item's text; a task or plan chunk goes on the board (undefined). A malformed chunk is the turn's bug. */
  #text(item: ReplyItem): string | undefined {
    if (typeof item === 'string') return item;
    const chunk = readChunk(item);
    if ('wrong' in chunk) throw new TypeError(`the turn yielded ${chunk.wrong}: yield text, or Slack's chunks (markdown_text, task_update, plan_update)`);
    if (chunk.type === 'markdown_text') return chunk.text;
    this.board.update(chunk);
    return undefined;
  }

  /** The rest of the stream, read to its end: its text and how many text chunks it had. */
  async rest(): Promise<{ text: string; count: number }> {
    let text = '';
    let count = 0;
    for (;;) {
      const next = await this.next();
      if (next.kind === 'done') return { text, count };
      if (next.kind === 'text') {
        text += next.value;
        count += 1;
      }
    }
  }

  async return(): Promise<void> {
    await this.#iterator.return?.();
  }
}

/** The whole of `chunks` (tasks put on `board`), and how many text chunks there were. */
function collect(chunks: AsyncIterable<ReplyItem>, board: TaskBoard): Promise<{ text: string; count: number }> {
  return new Feed(chunks, board).rest();
}

async function* once(text: string): AsyncIterable<string> {
  yield text;
}
