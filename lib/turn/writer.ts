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

/**
 * The message a run has left unfinished, as the turn's handle may read it at any moment (`ReplyWriter#open`,
 * read by a cut-off from a timer): the stream steps set it the moment Slack answers, never after.
 */
interface OpenMessage {
  /** The stream this writer has open (started, not yet stopped). */
  streaming: string | undefined;
  /** The open stream sends `chunks` (it began so: Slack wants one mode per stream, `streaming_mode_mismatch`). */
  chunked: boolean;
  /** A stream Slack closed under this run (past its life): its ts and the text Slack holds, until the run rewrites it. */
  stale: { ts: string; text: string } | undefined;
}

/** A stream call's text (and, in a chunked stream, the task updates not yet sent, taken off `board`) as Slack takes it. */
function streamBody(text: string, chunked: boolean, board: TaskBoard): Record<string, unknown> {
  if (!chunked) return text ? { markdown_text: text } : {};
  const list: ReplyChunk[] = [...board.take(), ...(text ? [{ type: 'markdown_text' as const, text }] : [])];
  return list.length > 0 ? { chunks: list } : {};
}

/**
 * A message's text as Slack takes it: plain (`text` for a post, `markdown_text` for an update) when it has
 * no blocks; else the tasks it carries, the text as a markdown block and the bot's blocks, with `text`
 * for notifications cut to the call's limit (a message with blocks shows the blocks).
 */
function withBlocks(
  piece: string,
  tasks: ReadonlyArray<TaskUpdateChunk | PlanUpdateChunk>,
  extra: Blocks,
  call: 'post' | 'update',
  mode: TaskDisplayMode | undefined,
): Record<string, unknown> {
  if (tasks.length === 0 && !extra) return call === 'update' ? { markdown_text: piece } : { text: piece };
  return messageBlocks({ text: piece, tasks, mode, extra, textMax: call === 'update' ? UPDATE_TEXT_MAX : POST_TEXT_MAX });
}

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
        ...this.#withBlocks(piece ?? CONTINUED, i === 0 ? tasks : [], last && piece !== undefined ? blocks : undefined, 'update'),
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
    const done = await this.client.chat.stopStream({ channel: this.target.channel, ts, ...(tasks.length > 0 ? { chunks: tasks } : {}) } as never).then(
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

/** How a stream ended before its stop: Slack closed the message (past its life), or the person pressed Stop. */
type Ended = 'expired' | 'stopped' | undefined;

/** What a stream takes from its writer. */
interface StreamSetup {
  client: WebClient;
  target: StreamTarget;
  ledger: PartsLedger | undefined;
  board: TaskBoard;
  /** A message's most characters. */
  max: number;
  /** The least time between two appends. */
  every: number;
  now: () => number;
  taskDisplayMode: TaskDisplayMode | undefined;
  noStream: Set<string> | undefined;
  /** The bot's blocks, on the reply's last message. */
  blocks: Blocks;
}

/**
 * One streamed reply while it is written: its messages, what the open one holds, what waits to be sent.
 * Each step is one Slack call (start, append, stop) or a named run of them (roll over, switch to chunks,
 * finish); a step Slack cuts short answers how (`Ended`), and the writer decides what follows.
 */
class OpenStream {
  /** The reply's messages, in order; the newest is the open one. */
  readonly parts: string[] = [];
  /** The open message's text as Slack has it: a code block reopened at its start, and closed at its end, included. */
  #held = '';
  /** Characters of the reply Slack has accepted (a reopened or closed code block's markers not counted). */
  #sent = 0;
  #lastAppend: number;

  constructor(
    private readonly s: StreamSetup,
    private readonly open: OpenMessage,
    /** Text read and not yet sent. */
    private pending: string,
  ) {
    this.#lastAppend = s.now();
  }

  /** Start a message holding `head` (a code block reopened) and `text`; `cannot` when Slack refuses a first stream here. */
  async start(head: string, text: string): Promise<'started' | 'cannot'> {
    const { client, target, ledger } = this.s;
    try {
      const started = await client.chat.startStream({
        channel: target.channel,
        thread_ts: target.threadTs,
        ...this.#body(head + text),
        ...(this.s.taskDisplayMode ? { task_display_mode: this.s.taskDisplayMode } : {}),
        ...(target.recipientUser ? { recipient_user_id: target.recipientUser } : {}),
        ...(target.recipientTeam ? { recipient_team_id: target.recipientTeam } : {}),
      } as never);
      if (!started.ts) throw new Error('chat.startStream answered without a ts');
      this.parts.push(started.ts);
      this.open.streaming = started.ts;
    } catch (error) {
      const code = slackError(error);
      if (this.parts.length === 0 && code && CANNOT_STREAM_HERE.has(code)) {
        if (code === 'channel_type_not_supported') this.s.noStream?.add(target.channel);
        return 'cannot';
      }
      throw error;
    }
    this.#held = head + text;
    this.#sent += text.length;
    await ledger?.recordParts(this.parts);
    ledger?.confirmed(this.#sent);
    this.#lastAppend = this.s.now();
    return 'started';
  }

  /** Append `text` (with the tasks not yet sent) to the open message. */
  async append(text: string): Promise<Ended> {
    const ts = this.#newest();
    try {
      await this.s.client.chat.appendStream({ channel: this.s.target.channel, ts, ...this.#body(text) } as never);
      this.#lastAppend = this.s.now();
    } catch (error) {
      return this.#cut(error, ts);
    }
    this.#accepted(text, '');
    return undefined;
  }

  /** Stop the open message with `text` (and the tasks not yet sent) and its metadata; `tail` closes a code block left open. */
  async stop(text: string, final: boolean, tail = ''): Promise<Ended> {
    const { client, target, blocks } = this.s;
    const ts = this.#newest();
    try {
      await client.chat.stopStream({
        channel: target.channel,
        ts,
        ...this.#body(text + tail),
        metadata: partMetadata(target.eventId, this.parts.length - 1, final),
        ...(final && blocks ? { blocks: blocks as never } : {}),
      } as never);
      this.open.streaming = undefined;
    } catch (error) {
      return this.#cut(error, ts);
    }
    this.#accepted(text, tail);
    return undefined;
  }

  /**
   * Roll over before the limit: fill this message (closing a code block left open), stop it, start the next
   * (reopening it). A message started full (cut where it reads well) is stopped right there: `planned` says how.
   */
  async rollOver(planned?: Rollover): Promise<Ended> {
    for (let plan = planned ?? this.#nextRollover(); plan; ) {
      const ended = await this.stop(this.pending.slice(0, plan.take), false, plan.tail);
      if (ended) return ended;
      this.pending = this.pending.slice(plan.take);
      const start = startOf(plan.head, this.pending, this.s.max);
      await this.start(plan.head, this.pending.slice(0, start.take));
      this.pending = this.pending.slice(start.take);
      plan = start.full ?? this.#nextRollover();
    }
    return undefined;
  }

  /** A task came to a stream that began as text: that message stops, and the reply goes on in a chunked one. */
  async toChunks(): Promise<Ended> {
    const ended = await this.stop('', false);
    if (ended) return ended;
    this.open.chunked = true;
    await this.start('', '');
    return undefined;
  }

  /**
   * Follow the turn's stream to its end (undefined) or until Slack ends this one: each text waits in
   * `pending`, rolls over before a message's limit, and goes in an append at most every `every` ms.
   * `full`: the first message was started full and rolls over before the next chunk is read.
   */
  async follow(feed: Feed, full: Rollover | undefined): Promise<Ended> {
    const { board } = this.s;
    let ended: Ended = full ? await this.rollOver(full) : undefined;
    while (!ended) {
      const got = await feed.next(this.#wakeIn());
      if (got.kind === 'done') break;
      if (got.kind === 'text') this.pending += got.text;
      // A task arrived in a stream that began as text: it goes on in a chunked message of its own.
      if (!this.open.chunked && board.unsent) {
        ended = await this.toChunks();
        if (ended) break;
      }
      ended = (await this.rollOver()) ?? (await this.#appendIfDue());
    }
    return ended;
  }

  /** The reply is whole: a task still open is done with it, and the last message stops with what waits. */
  async finish(): Promise<Ended> {
    this.s.board.close('complete');
    let ended = await this.rollOver();
    if (!ended && !this.open.chunked && this.s.board.unsent) ended = await this.toChunks();
    if (!ended) ended = await this.stop(this.pending, true);
    return ended;
  }

  /**
   * The person pressed Stop on the open message: Slack takes no more chunks there, and the call it refused may have carried
   * task updates, so an update gives the message the whole board as blocks (each open task `status`: `error`
   * when the answer was cut short, `complete` when it was whole) beside the text Slack kept. Best
   * effort: the answer stands as the person left it, and a failed update must not make the turn run again.
   */
  async tasksAfterStop(status: 'complete' | 'error'): Promise<void> {
    const { board } = this.s;
    if (!this.open.chunked || !board.any) return;
    board.close(status);
    board.take();
    await this.s.client.chat
      .update({
        channel: this.s.target.channel,
        ts: this.#newest(),
        ...withBlocks(this.#held, board.final(), undefined, 'update', this.s.taskDisplayMode),
      } as never)
      .catch(() => undefined);
  }

  /** An append, if one is due and has something to send; while a task is open, text that would overflow this message waits for it (roll over). */
  async #appendIfDue(): Promise<Ended> {
    const { board, max, every, now } = this.s;
    if ((this.pending === '' && !board.unsent) || now() - this.#lastAppend < every) return undefined;
    if (this.#held.length + this.pending.length > max) return board.unsent ? this.append('') : undefined;
    const ended = await this.append(this.pending);
    if (!ended) this.pending = '';
    return ended;
  }

  /** How long the feed may wait before an append falls due, if there is something it could send (text with room for it, or tasks). */
  #wakeIn(): number | undefined {
    const { board, max, every, now } = this.s;
    const due = every - (now() - this.#lastAppend);
    const fits = this.#held.length + this.pending.length <= max;
    const sendable = board.unsent || (this.pending !== '' && fits);
    return sendable ? Math.max(0, due) : undefined;
  }

  /** The next rollover, not while a task is open here: its card would be left spinning in a message that no longer streams (the text waits for the task). */
  #nextRollover(): Rollover | undefined {
    return this.s.board.open.length === 0 ? rollover(this.#held, this.pending, this.s.max) : undefined;
  }

  #body(text: string): Record<string, unknown> {
    return streamBody(text, this.open.chunked, this.s.board);
  }

  #newest(): string {
    return this.parts[this.parts.length - 1]!;
  }

  /** Slack took `text` (and `tail`, a code block's closing markers) into the open message. */
  #accepted(text: string, tail: string): void {
    this.#held += text + tail;
    this.#sent += text.length;
    this.s.ledger?.confirmed(this.#sent);
  }

  /** A call Slack refused because the stream ended (`Ended`), set down the moment it answers; any other refusal is thrown. */
  #cut(error: unknown, ts: string): 'expired' | 'stopped' {
    const code = slackError(error);
    if (code === 'message_not_in_streaming_state' || code === 'stopped_by_user') this.open.streaming = undefined;
    if (code === 'message_not_in_streaming_state') {
      this.open.stale = { ts, text: this.#held };
      return 'expired';
    }
    if (code === 'stopped_by_user') return 'stopped';
    throw error;
  }
}

/** A turn's stream as the writer reads it: text, the task chunks put on the board, or "the board changed". */
class Feed {
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
      return { kind: 'text', text };
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
function collect(chunks: AsyncIterable<ReplyItem>, board: TaskBoard): Promise<{ text: string; count: number }> {
  return new Feed(chunks, board).rest();
}

async function* once(text: string): AsyncIterable<string> {
  yield text;
}
