/**
 * The turn's contract: what your bot's `takeTurn(request, ctx)` gets and may
 * return. Everything around it (claiming, leases, failover, rate limits,
 * threading, streaming, splitting long answers, tracing metadata, the fence
 * that keeps a copy that lost the turn from writing) is the turn handle's job
 * (lib/turn/handle.ts), built by the runner for every turn, whatever its origin.
 */
import type { App } from '@slack/bolt';
import type { types as SlackTypes } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import type { ReplyChunk, TaskDisplayMode } from './tasks.js';
import type { StepRun } from './steps.js';
import type { TurnHandle } from './handle.js';
import type { ScheduleSpec } from '../schedule/spec.js';
import type { AskAnswer, AskQuestion } from '../ask/question.js';
import type { FollowUps } from './follow-ups.js';

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
  /** 'mention' for an @mention in a channel, 'dm' for a direct message, 'schedule' for a slot of the module's `schedules`. */
  via: 'mention' | 'dm' | 'schedule';
  /** Found by the catch-up sweep after an outage (the reply then says it comes late). */
  late: boolean;
  /** Files shared with the message. */
  files: TurnFile[];
  /** Which copy is answering. */
  copy: { role: CopyRole; instance: string };
  /**
   * In an assistant thread (the split view): what the person was looking at
   * as of the latest context change; in a DM of the Agent messaging
   * experience, as of their latest `app_context_changed`. Kept in the shared
   * store, so whichever copy answers sees the same. Undefined elsewhere.
   */
  context?: ThreadContext | undefined;
  /**
   * A schedule's firing (`via === 'schedule'`): its name and slot (the firing's scheduled time, ISO 8601, UTC).
   * Its answer is posted at the top level of the schedule's channel or DM (`threadTs` is empty); `late` says
   * the slot was missed while no copy ran. Undefined for a message.
   */
  schedule?: { name: string; slot: string } | undefined;
  /**
   * The message event's `action_token`, for Slack's Real-time Search API (`assistant.search.context`:
   * "Send action_token as received in a message event", web-api's AssistantSearchContextArguments).
   * Short-lived: a retry or a takeover much later may find it refused. Undefined when Slack sent none.
   * (Optional in the type only so that a request built by hand, in a bot's own tests, still compiles.)
   */
  actionToken?: string | undefined;
  /** The event Slack sent (an `app_mention`, or a `message` in a DM), as it came: what autohub reads, and all the rest. Always set by autohub. */
  event?: Readonly<TurnEvent>;
}

/** The events a turn answers, as `@slack/types` 3.2 (re-exported by Bolt) types them. */
export type TurnEvent = SlackTypes.AppMentionEvent | SlackTypes.MessageEvent;

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
   * `fn` is handed the step's idempotency key, the same on every run: give it to
   * the other side, so the one run the fence cannot stop (docs/steps.md) is a no-op.
   */
  step<T>(name: string, fn: (step: StepRun) => Promise<T> | T, options?: StepOptions): Promise<T>;
  /** The rate-limit-aware WebClient, fenced: its writes leave only while this copy holds the turn. */
  client: WebClient;
  log: Logger;
  /**
   * Ask a person and wait, parked durably: posts `text` in the turn's thread with one button per choice and
   * ends this run (no slot held, nothing renewed). A click by one of `from` (default: the person the bot is
   * answering), on either copy, runs the turn again from the top: earlier steps come back from ctx.step, and
   * this call returns `{ choice, user }`; past `timeoutMs` (default an hour, at most 23 h) it returns `{ timedOut: true }`.
   */
  ask(question: AskQuestion): Promise<AskAnswer>;
  /**
   * Wait `ms` (1 s to 23 h), parked as ctx.ask parks: this run ends, and the turn runs again from the top once
   * the time is up, on whichever copy is up then; earlier steps come back from ctx.step, and this call returns.
   */
  sleep(ms: number): Promise<void>;
  /**
   * How Slack shows this turn's tasks (`timeline` or `plan`), set before the reply's first yield (a stream
   * takes it at its start): the module's `taskDisplayMode` for this turn only. Any other value is the turn's
   * bug (a TypeError). @default the module's `taskDisplayMode`
   */
  taskDisplayMode?: TaskDisplayMode | undefined;
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

/**
 * What `AUTOHUB_TURN` names: an ES module exporting `takeTurn`, and
 * optionally any of the rest. Every export but `takeTurn` is optional; the
 * AI-app ones are declared in AiAppExports below.
 */
export interface TurnModule extends AiAppExports {
  takeTurn: TakeTurn;
  /** Add slash commands, actions and other listeners; they get the same claim and lease protection. */
  register?: (app: App, helpers: RegisterHelpers) => void | Promise<void>;
  /** @default 'queue' */
  concurrency?: TurnConcurrency;
  /** How Slack shows the turn's tasks: `timeline` (cards between the text) or `plan` (one plan block). Set, every stream sends `chunks`. */
  taskDisplayMode?: TaskDisplayMode;
  /** Turns that start on their own: each slot runs once across the copies (lib/schedule). @default none */
  schedules?: readonly ScheduleSpec[];
  /**
   * `answer`: a person's edit of their message in a DM is a new message of its thread, answered in the
   * conversation's order (`request.text` is the message as it now reads); `ignore`: edits are not turns. @default 'ignore'
   */
  edits?: 'answer' | 'ignore';
  /**
   * Follow-ups without a mention: a person's reply in a channel thread the bot answered in within `minutes`
   * (1 to 1,440) is answered as if it mentioned the bot, in the conversation's order, once across the copies.
   * On, `npm run setup` subscribes the app to channels' messages (message.channels, message.groups,
   * message.mpim), and every message in a channel the bot is in is claimed. @default off
   * @example export const followUps = { minutes: 30 };
   */
  followUps?: FollowUps;
}

/** What a bot module's `register(app, helpers)` gets besides the Bolt app (app/parts.ts builds it). */
export interface RegisterHelpers {
  log: Logger;
  /** The copy's rate-limit-aware WebClient (not fenced: for writes outside a turn). */
  client: WebClient;
  /** The turn handle of the delivery a listener is answering (its `client` is fenced by the turn's lease). */
  turnOf(context: unknown): TurnHandle | undefined;
  /** Answer a message event like an @mention: the whole reply protocol, with `takeTurn` (default: the bot's). */
  answer(args: { event: unknown; body: unknown; context: unknown }, takeTurn?: TakeTurn): Promise<void>;
}

// --- Conversations and tasks (docs/tasks-and-conversations.md): kept apart from the blocks above. ---

/**
 * What a message written while a turn of its thread still runs does:
 * `queue` (the default) waits for that turn, across the copies, and then
 * runs knowing its answer; `parallel` runs at once beside it; `interrupt`
 * stops that turn (its `ctx.signal` aborts with a TurnInterruptedError, what
 * it wrote is closed as interrupted) and then runs, knowing its question and
 * partial answer.
 */
export type TurnConcurrency = 'queue' | 'parallel' | 'interrupt';

/** `ctx.step(name, fn, { task })`: the step shown as a task of the reply (its name is the task's id). */
export interface StepOptions {
  /** The task's title (and details): in progress while `fn` runs, complete after, error when it throws; a kept step shows complete. */
  task?: string | { title: string; details?: string };
}

export type { BlocksChunk, ReplyChunk, TaskDisplayMode, TaskStatus, TaskUpdateChunk, PlanUpdateChunk, MarkdownTextChunk } from './tasks.js';

// ---------------------------------------------------------------------------
// Slack's AI-app surface: the thinking status, assistant threads (the split
// view) and feedback buttons. Everything here is optional in a bot module;
// the handle (lib/turn/handle.ts) and app/listeners/assistant.ts do the rest,
// once across the copies.
// ---------------------------------------------------------------------------

/** Where the person is in Slack while an assistant thread is open (its latest `assistant_thread_context_changed`). */
export interface ThreadContext {
  /** The channel they are looking at; undefined when none (a search, a canvas). */
  channel: string | undefined;
  team: string | undefined;
  enterprise: string | undefined;
}

/** One suggested prompt shown when an assistant thread opens: its button `title`, and the `message` sent when clicked. */
export interface SuggestedPrompt {
  title: string;
  message: string;
}

/**
 * A DM with the bot as it opened: an assistant thread (`assistant_thread_started`, the Assistant messaging
 * experience), or the DM itself (`app_home_opened` with `tab: "messages"`, the Agent messaging experience,
 * which has no thread: `threadTs` undefined, and the prompts go to the DM).
 */
export interface AssistantThread {
  /** The DM channel the thread is in. */
  channel: string;
  /** The assistant thread's ts; undefined in the Agent messaging experience. */
  threadTs: string | undefined;
  /** The person who opened it. */
  user: string | undefined;
  context: ThreadContext;
}

/** A click on a `feedback_buttons` element under one of the bot's answers. */
export interface Feedback {
  /** The clicked button's `value`. */
  value: string;
  /** True for the element's `positive_button`, false for its `negative_button`. */
  positive: boolean;
  /** Who clicked. */
  user: string | undefined;
  channel: string | undefined;
  /** The answer's ts (the message the buttons are on). */
  messageTs: string | undefined;
  /** The thread the answer is in. */
  threadTs: string | undefined;
  /** The event the answer answered, from its metadata (when it carries autohub's). */
  eventId: string | undefined;
  /** The element's `action_id`. */
  actionId: string | undefined;
}

/** What `onFeedback` gets besides the click. */
export interface FeedbackHelpers {
  /** The copy's rate-limit-aware WebClient (not fenced: a click holds no lease). */
  client: WebClient;
  log: Logger;
}

/** Slack allows at most this many loading messages in one status (assistant.threads.setStatus). */
export const MAX_LOADING_MESSAGES = 10;
/** Slack shows at most this many suggested prompts (assistant.threads.setSuggestedPrompts). */
export const MAX_PROMPTS = 4;
/** The status shown while a turn runs, when the module exports none. */
export const DEFAULT_STATUS = 'is thinking...';

/** The optional exports of a bot module for Slack's AI-app features (TurnModule extends it). */
export interface AiAppExports {
  /** The status under the thread while a turn runs ("<bot> is thinking..."). @default 'is thinking...' */
  status?: string;
  /** Up to 10 messages Slack rotates through while the turn runs, or a function of the request giving them. @default none */
  loadingMessages?: readonly string[] | ((request: TurnRequest) => readonly string[] | Promise<readonly string[]>);
  /** Up to 4 suggested prompts for a new assistant thread, or a function of the thread giving them. @default none */
  prompts?: readonly SuggestedPrompt[] | ((thread: AssistantThread) => readonly SuggestedPrompt[] | Promise<readonly SuggestedPrompt[]>);
  /** The assistant thread's title after its first answer. @default the first line of the person's message, trimmed */
  title?: (request: TurnRequest, answer: string) => string | Promise<string>;
  /** Called once per click on a `feedback_buttons` element under one of the bot's answers, whichever copy got it. */
  onFeedback?: (feedback: Feedback, helpers: FeedbackHelpers) => void | Promise<void>;
  /** The heading over the suggested prompts (assistant.threads.setSuggestedPrompts' `title`: "Suggested Prompts", "Related Questions"). @default none */
  promptsTitle?: string;
  /**
   * Posted once when a person opens an assistant thread (in it), or a DM with the app in the agent view (once a
   * DM, for 30 days), whichever copy sees it, before the prompts: a string, or a function of the thread. @default none
   */
  greeting?: string | ((thread: AssistantThread) => string | Promise<string>);
  /** The bot's own words for the notes autohub posts (each a string; the rest stay autohub's). @default autohub's */
  notes?: Partial<TurnNotes>;
}

/** The notes autohub posts in a thread, by name: what a module's `notes` may reword. */
export interface TurnNotes {
  /** The first line of a reply found by the catch-up sweep. */
  late: string;
  /** The turn could not be answered (a dead letter). */
  dead: string;
  /** The turn is being retried for long. */
  retrying: string;
  /** The turn was skipped past its conversation's bound (a newer message is answered). */
  skipped: string;
  /** Added to a message a failed run left open; the next run rewrites it. */
  interrupted: string;
  /** Added to a message cut off past its deadline, or by a newer message. */
  cutOff: string;
  /** Bots answered each other past the bound in the thread (AUTOHUB_ALLOW_BOTS). */
  botLoop: string;
}

export const TURN_NOTE_NAMES: readonly (keyof TurnNotes)[] = ['late', 'dead', 'retrying', 'skipped', 'interrupted', 'cutOff', 'botLoop'];
