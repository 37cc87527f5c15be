/**
 * Writing a turn's reply into the thread: posted, or streamed as it is
 * written, in as many messages as Slack's limits need (lib/turn/parts.ts),
 * each with the turn's metadata; the last one says the reply is whole.
 *
 *   - Every call goes through the turn's fenced client: it leaves only while
 *     this copy holds the turn (the fence is in the rate-limit fetch).
 *   - A streamed message's ts goes into the lease the moment Slack answers
 *     chat.startStream (the record is sent beside the stream's next write and
 *     settled with it), so a taker-over completes *these* messages (stop what
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
import { collect, Feed, type ReplyItem } from './feed.js';
import { OpenStream, slackError, streamBody, withBlocks, type Blocks, type OpenMessage, type PartsLedger, type StreamTarget } from './open-stream.js';
import { partMetadata, PART_CHARS, splitText } from './parts.js';
import { startOf } from './split.js';
import { MESSAGE_BLOCKS_MAX } from './task-blocks.js';
import { statusOnly, TaskBoard, type PlanUpdateChunk, type TaskDisplayMode, type TaskUpdateChunk } from './tasks.js';

export type { ReplyItem } from './feed.js';
export type { PartsLedger, StreamTarget } from './open-stream.js';
export { slackError } from './open-stream.js';

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

/** What a message an earlier run wrote says when a shorter answer no longer needs it. */
const CONTINUED = '_(continued above)_';

export class ReplyWriter {
  readonly #open: OpenMessage = { streaming: undefined, chunked: false, stale: undefined };
  readonly #every: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #board: TaskBoard;

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
    return this.#open.streaming ?? this.#open.stale?.ts;
  }

  /** Whether a stream may start now (not throttled, not refused in this channel). */
  #canStream(): boolean {
    // chat.startStream takes a thread_ts: a top-level answer (a schedule's) is posted.
    if (!this.target.threadTs) return false;
    return !(this.o.noStream?.has(this.target.channel) || this.o.closed('chat.startStream') || this.o.closed('chat.stopStream'));
  }

  /**
   * A run that failed mid-stream closes its open message: each open task
   * marked `error` (this run gave up on it) and `note` added; the next run rewrites it.
   */
  async interrupt(note: string): Promise<void> {
    const { streaming: ts, stale } = this.#open;
    this.#board.close('error');
    if (ts) {
      await this.client.chat.stopStream({ channel: this.target.channel, ts, ...streamBody(note, this.#open.chunked, this.#board) } as never);
      this.#open.streaming = undefined;
    } else if (stale) {
      // Slack closed the stream, so it takes no chunks: an update with the tasks as blocks, the text as Slack holds it.
      const text = stale.text.length + note.length <= this.#max ? stale.text + note : stale.text;
      const tasks = this.#board.any ? this.#board.final() : [];
      await this.client.chat.update({ channel: this.target.channel, ts: stale.ts, ...this.#withBlocks(text, tasks, undefined, 'update') } as never);
      this.#open.stale = undefined;
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
        // A schedule's answer has no thread: a new message at the top level.
        ...(this.target.threadTs ? { thread_ts: this.target.threadTs } : {}),
        ...this.#withBlocks(piece, i === 0 ? tasks : [], last ? this.#lastBlocks(blocks) : undefined, 'post'),
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
   * The reply's last message's own blocks: the ones the turn yielded in blocks chunks, in order, then the
   * bot's returned ones. A message holds 50 blocks (https://docs.slack.dev/block-kit): the text's markdown
   * block and the bot's own come first, the yielded ones take what is left (a stream shows them all, each
   * chunk at most 50; a post, which takes no chunks, only as many as fit).
   */
  #lastBlocks(blocks: Blocks): Blocks {
    const yielded = this.#board.blocks;
    if (yielded.length === 0) return blocks;
    const own = blocks ?? [];
    return [...yielded.slice(0, Math.max(0, MESSAGE_BLOCKS_MAX - 1 - own.length)), ...own];
  }

  #withBlocks(piece: string, tasks: ReadonlyArray<TaskUpdateChunk | PlanUpdateChunk>, extra: Blocks, call: 'post' | 'update'): Record<string, unknown> {
    return withBlocks(piece, tasks, extra, call, this.o.taskDisplayMode);
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
        ...this.#withBlocks(piece ?? CONTINUED, i === 0 ? tasks : [], last && piece !== undefined ? this.#lastBlocks(blocks) : undefined, 'update'),
        metadata: partMetadata(this.target.eventId, i, piece !== undefined && last),
      } as never);
      if (this.#open.stale?.ts === ts) this.#open.stale = undefined;
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
    // Status only: the message showed the tasks' details, output and sources already (Slack adds each update's
    // to them), and the update that follows gives the first message each task whole, as blocks.
    const ends = statusOnly(tasks);
    const done = await this.client.chat.stopStream({ channel: this.target.channel, ts, ...(ends.length > 0 ? { chunks: ends } : {}) } as never).then(
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
   * The reply streamed as it is written: started with the first text (or task), followed, then stopped
   * whole; where Slack ends the stream first, completed (it closed the message) or left as the person
   * stopped it. A start Slack refuses here (nothing visible yet) posts the reply instead.
   */
  async #stream(chunks: AsyncIterable<ReplyItem>, blocks: Blocks): Promise<WriteOutcome> {
    const board = this.#board;
    const feed = new Feed(chunks, board);
    const opening = await feed.opening();
    if (opening === '' && !board.unsent) return { ts: undefined, parts: [], how: 'streamed', chunks: feed.count };
    // One mode for the whole stream: chunks when tasks may come (the bot set a display mode) or came already.
    this.#open.chunked = this.o.taskDisplayMode !== undefined || board.any;
    const first = startOf('', opening, this.#max);
    const stream = new OpenStream(
      {
        client: this.client,
        target: this.target,
        ledger: this.ledger,
        board,
        max: this.#max,
        every: this.#every,
        now: this.#now,
        taskDisplayMode: this.o.taskDisplayMode,
        noStream: this.o.noStream,
        blocks,
      },
      this.#open,
      opening.slice(first.take),
    );
    if ((await stream.start('', opening.slice(0, first.take))) === 'cannot') {
      const all = await feed.rest();
      return { ...(await this.post(all.text, blocks)), chunks: all.count };
    }
    const { parts } = stream;
    const cut = await stream.follow(feed, first.full);
    if (cut === 'stopped') {
      // The person pressed Stop: the answer ends where Slack stopped it. No more text is written.
      await feed.return();
      await stream.tasksAfterStop('error');
      return { ts: parts[0], parts, how: 'stopped', chunks: feed.count };
    }
    if (cut === 'expired') {
      const all = await feed.rest();
      return { ...(await this.complete(parts, all.text, blocks)), chunks: all.count };
    }
    const ended = await stream.finish();
    if (ended === 'stopped') {
      await stream.tasksAfterStop('complete');
      return { ts: parts[0], parts, how: 'stopped', chunks: feed.count };
    }
    if (ended === 'expired') return { ...(await this.complete(parts, feed.text, blocks)), chunks: feed.count };
    return { ts: parts[0], parts, how: 'streamed', chunks: feed.count };
  }
}

async function* once(text: string): AsyncIterable<string> {
  yield text;
}
