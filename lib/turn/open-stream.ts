/**
 * One streamed reply while it is written (chat.startStream, chat.appendStream, chat.stopStream), as a state
 * object and named steps; the writer (lib/turn/writer.ts) decides when each runs and what follows an end.
 */
import type { WebClient } from '@slack/web-api';
import type { Feed } from './feed.js';
import { partMetadata } from './parts.js';
import { rollover, startOf, type Rollover } from './split.js';
import { messageBlocks, UPDATE_TEXT_MAX } from './task-blocks.js';
import type { PlanUpdateChunk, ReplyChunk, TaskBoard, TaskDisplayMode, TaskUpdateChunk } from './tasks.js';
import type { ReplyTarget } from './thread.js';

export interface StreamTarget extends ReplyTarget {
  /** Outside a DM Slack wants the recipient's user and team ids (the team is the user's own, `user_team`, for Slack Connect). */
  recipientUser?: string | undefined;
  recipientTeam?: string | undefined;
}

/** What the writer needs of the turn's lease (absent for a turn whose claim failed open). */
export interface PartsLedger {
  /** Messages an earlier run (or this one) of the turn wrote: complete these, never add a second reply. */
  readonly parts: readonly string[];
  /**
   * Record the reply's messages so far (one store command). Sent beside the stream's next write, not
   * before it, and awaited with that write: a copy that dies with the record unanswered leaves a state a
   * taker-over knows either way (an open message without metadata, as in the window before the start's
   * answer, or a stopped one whose metadata the thread read finds).
   */
  recordParts(ts: readonly string[]): Promise<void>;
  /** Slack has confirmed this many characters of the reply (kept with the next renewal, at no cost). */
  confirmed(chars: number): void;
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

export type Blocks = readonly Record<string, unknown>[] | undefined;

/** chat.postMessage truncates `text` past 40,000 characters (https://docs.slack.dev/reference/methods/chat.postMessage). */
const POST_TEXT_MAX = 40_000;

/**
 * The message a run has left unfinished, as the turn's handle may read it at any moment (`ReplyWriter#open`,
 * read by a cut-off from a timer): the stream steps set it the moment Slack answers, never after.
 */
export interface OpenMessage {
  /** The stream this writer has open (started, not yet stopped). */
  streaming: string | undefined;
  /** The open stream sends `chunks` (it began so: Slack wants one mode per stream, `streaming_mode_mismatch`). */
  chunked: boolean;
  /** A stream Slack closed under this run (past its life): its ts and the text Slack holds, until the run rewrites it. */
  stale: { ts: string; text: string } | undefined;
}

/**
 * A stream call's text (and, in a chunked stream, the chunks not yet sent, taken off `board`) as Slack takes
 * it, in the order the turn yielded them: `from` is where in the reply's text `text` begins, and each chunk
 * goes where it was yielded (its `at`), the text cut there; one yielded before `text` goes first, one after
 * it last. `from` undefined (a note that is no part of the reply): every chunk first.
 */
export function streamBody(text: string, chunked: boolean, board: TaskBoard, from?: number): Record<string, unknown> {
  if (!chunked) return text ? { markdown_text: text } : {};
  const list: ReplyChunk[] = [];
  const markdown = (piece: string) => piece && list.push({ type: 'markdown_text', text: piece });
  let cut = 0;
  for (const { chunk, at } of board.take()) {
    const upto = from === undefined ? 0 : Math.min(Math.max(at - from, cut), text.length);
    markdown(text.slice(cut, upto));
    cut = upto;
    list.push(chunk);
  }
  markdown(text.slice(cut));
  return list.length > 0 ? { chunks: list } : {};
}

/**
 * A message's text as Slack takes it: plain (`text` for a post, `markdown_text` for an update) when it has
 * no blocks; else the tasks it carries, the text as a markdown block and the bot's blocks, with `text`
 * for notifications cut to the call's limit (a message with blocks shows the blocks).
 */
export function withBlocks(
  piece: string,
  tasks: ReadonlyArray<TaskUpdateChunk | PlanUpdateChunk>,
  extra: Blocks,
  call: 'post' | 'update',
  mode: TaskDisplayMode | undefined,
): Record<string, unknown> {
  if (tasks.length === 0 && !extra) return call === 'update' ? { markdown_text: piece } : { text: piece };
  return messageBlocks({ text: piece, tasks, mode, extra, textMax: call === 'update' ? UPDATE_TEXT_MAX : POST_TEXT_MAX });
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
export class OpenStream {
  /** The reply's messages, in order; the newest is the open one. */
  readonly parts: string[] = [];
  /** The open message's text as Slack has it: a code block reopened at its start, and closed at its end, included. */
  #held = '';
  /** Characters of the reply Slack has accepted (a reopened or closed code block's markers not counted). */
  #sent = 0;
  #lastAppend: number;
  /** The record of the reply's messages, sent when a message started and awaited with the stream's next write. */
  #recording: Promise<void> | undefined;

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
        ...this.#body(head + text, this.#sent - head.length),
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
    const recording = ledger?.recordParts(this.parts);
    // Held until the next write settles it; a turn that ends before one leaves the outcome on the lease (lost, or to record again).
    recording?.catch(() => undefined);
    this.#recording = recording;
    ledger?.confirmed(this.#sent);
    this.#lastAppend = this.s.now();
    return 'started';
  }

  /** Append `text` (with the tasks not yet sent) to the open message. */
  async append(text: string): Promise<Ended> {
    const ts = this.#newest();
    try {
      await this.#besideRecord(this.s.client.chat.appendStream({ channel: this.s.target.channel, ts, ...this.#body(text, this.#sent) } as never));
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
      await this.#besideRecord(
        client.chat.stopStream({
          channel: target.channel,
          ts,
          ...this.#body(text + tail, this.#sent),
          metadata: partMetadata(target.eventId, this.parts.length - 1, final),
          ...(final && blocks ? { blocks: blocks as never } : {}),
        } as never),
      );
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

  /**
   * A stream call sent beside the record of a message just started, settled with it: the record's
   * failure first (the lease lost: the turn stands down), then the call's own. A whole reply's record
   * and stop so cost one round trip after the start, not two.
   */
  async #besideRecord<T>(write: Promise<T>): Promise<T> {
    const recording = this.#recording;
    this.#recording = undefined;
    if (!recording) return write;
    const [recorded, written] = await Promise.allSettled([recording, write]);
    if (recorded.status === 'rejected') throw recorded.reason;
    if (written.status === 'rejected') throw written.reason;
    return written.value;
  }

  /** `from`: where in the reply's text `text` begins (a reopened code block's marker before it counted back). */
  #body(text: string, from: number): Record<string, unknown> {
    return streamBody(text, this.open.chunked, this.s.board, from);
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
