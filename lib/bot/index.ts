/**
 * `autohub/bot`: the bot contract, the one entry a bot author imports
 * (package.json `exports`, built to dist/node with its .d.ts, so a `.js` or
 * `.ts` bot imports it in a production install, where Node strips a bot's
 * types but not autohub's own sources).
 *
 *   import { RetryableError, type TakeTurn } from 'autohub/bot';
 *
 * What to throw says what happens next: `RetryableError` (retried with
 * backoff), `RetryAfterError` (retried, not before N seconds),
 * `NonRetryableError` (a dead letter at once). Anything else is read as
 * lib/errors/turn-failure.ts reads it. The rest is types: the module's
 * exports (`TurnModule`), what `takeTurn` gets and returns, what `register`
 * gets. Nothing here is autohub's internals; a name added here is a promise.
 */
export { NonRetryableError, RetryableError, RetryAfterError, TurnDeadlineError, TurnInterruptedError, isTurnInterrupted } from '../errors/index.js';
export type {
  AiAppExports,
  AssistantThread,
  CopyRole,
  Feedback,
  FeedbackHelpers,
  HistoryMessage,
  RegisterHelpers,
  ReplyText,
  ReplyWithBlocks,
  StepOptions,
  SuggestedPrompt,
  TakeTurn,
  ThreadContext,
  TurnConcurrency,
  TurnContext,
  TurnFile,
  TurnModule,
  TurnNotes,
  TurnReply,
  TurnRequest,
} from '../turn/types.js';
export type { AskAnswer, AskQuestion } from '../ask/index.js';
export type { ScheduleSpec } from '../schedule/index.js';
export type { BlocksChunk, MarkdownTextChunk, PlanUpdateChunk, ReplyChunk, TaskDisplayMode, TaskStatus, TaskUpdateChunk } from '../turn/tasks.js';
export type { StepRun } from '../turn/steps.js';
export type { FollowUps } from '../turn/follow-ups.js';
export type { Logger } from '../log/index.js';
