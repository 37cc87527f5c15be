/**
 * The turn's contract: what your bot's `takeTurn(request, ctx)` gets and may
 * return. Everything around it (claiming, leases, failover, rate limits,
 * threading, streaming, splitting long answers, tracing metadata, the fence
 * that keeps a copy that lost the turn from writing) is the turn handle's job
 * (lib/turn/handle.ts), built by the runner for every turn, whatever its origin.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import type { ReplyChunk, TaskDisplayMode } from './tasks.js';

export type CopyRole = 'hub' | 'cloud';

/** A file shared with the message (names, types, sizes; the bytes on demand, with the bot token). */
export interface TurnFile {
  id: string;
  name: string;
  mimetype: string | undefined;
  size: number | undefined;
  /** The file's bytes (`url_private_download`, with the bot token). Rejects when Slack refuses. */
  download(): Promise<ArrayBuffer>;
}

export interface TurnRequest {
  /** What the person wrote, with the bot's own mention removed (other mentions kept). */
  text: string;
  /** The Slack user id of the person asking. */
  user: string | undefined;
  /** Where the reply goes. */
  channel: string;
  /** The thread the reply goes in: the message's `thread_ts`, or its own `ts`. */
  threadTs: string;
  /** The message's own ts. */
  ts: string;
  /** The delivery's event id (stable across Slack's retries, takeovers and replays). */
  eventId: string;
  /** 'mention' for an @mention in a channel, 'dm' for a direct message. */
  via: 'mention' | 'dm';
  /** Found by the catch-up sweep after an outage (the reply then says it comes late). */
  late: boolean;
  /** Files shared with the message. */
  files: TurnFile[];
  /** Which copy is answering. */
  copy: { role: CopyRole; instance: string };
}

/** One message of the thread so far, oldest first. */
export interface HistoryMessage {
  /** This bot's own messages are the assistant's; everyone else's the user's. */
  role: 'user' | 'assistant';
  user: string | undefined;
  /** The text, the bot's mention removed. */
  text: string;
  ts: string;
}

export interface TurnContext {
  /**
   * Aborts when this copy no longer owns the turn: its lease lost or taken
   * over, the copy shutting down past its drain, the retry window over, or the
   * person pressed Stop. Hand it to a model SDK call so a frozen or partitioned
   * copy stops paying for a call another copy is already making.
   */
  signal: AbortSignal;
  /** The thread before this message, oldest first (paginated, 1,000 a call, through the rate-limit layer). */
  history(): Promise<HistoryMessage[]>;
  /**
   * Run `fn` once per turn: its JSON result is kept with the turn (sealed),
   * so a retry or a takeover gets the kept result instead of running `fn`
   * again. A tool's side effect happens once; a finished model call is not paid twice.
   */
  step<T>(name: string, fn: () => Promise<T> | T, options?: StepOptions): Promise<T>;
  /** The rate-limit-aware WebClient, fenced: its writes leave only while this copy holds the turn. */
  client: WebClient;
  log: Logger;
}

/**
 * Text, or an async iterable of text chunks (a model SDK's stream), streamed
 * into the thread as it is written; the iterable may yield Slack's own
 * chunks beside the text (tasks and plans: ReplyChunk).
 */
export type ReplyText = string | AsyncIterable<string | ReplyChunk>;

/** A reply that ends with blocks (feedback buttons, say), added to the last message. */
export interface ReplyWithBlocks {
  text: ReplyText;
  blocks?: readonly Record<string, unknown>[];
}

/** What a turn returns: nothing (no reply), text, a stream of text, or text with blocks. */
export type TurnReply = ReplyText | ReplyWithBlocks | undefined | null;

export type TakeTurn = (request: TurnRequest, ctx: TurnContext) => Promise<TurnReply> | TurnReply;

/** What `AUTOHUB_TURN` names: an ES module exporting `takeTurn`, and optionally `register`. */
export interface TurnModule {
  takeTurn: TakeTurn;
  /** Add slash commands, actions and other listeners; they get the same claim and lease protection. */
  register?: (app: unknown, helpers: unknown) => void | Promise<void>;
}

// --- Conversations and tasks (docs/tasks-and-conversations.md): kept apart from the blocks above. ---

/**
 * What a message written while a turn of its thread still runs does:
 * `queue` (the default) waits for that turn, across the copies, and then
 * runs knowing its answer; `parallel` runs at once beside it.
 */
export type TurnConcurrency = 'queue' | 'parallel';

export interface TurnModule {
  /** @default 'queue' */
  concurrency?: TurnConcurrency;
  /** How Slack shows the turn's tasks: `timeline` (cards between the text) or `plan` (one plan block). Set, every stream sends `chunks`. */
  taskDisplayMode?: TaskDisplayMode;
}

/** `ctx.step(name, fn, { task })`: the step shown as a task of the reply (its name is the task's id). */
export interface StepOptions {
  /** The task's title (and details): in progress while `fn` runs, complete after, error when it throws; a kept step shows complete. */
  task?: string | { title: string; details?: string };
}

export type { ReplyChunk, TaskDisplayMode, TaskStatus, TaskUpdateChunk, PlanUpdateChunk, MarkdownTextChunk } from './tasks.js';
