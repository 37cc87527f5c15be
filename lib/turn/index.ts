export { TurnHandle, LATE_NOTE, DEAD_NOTE, INTERRUPTED_NOTE, RETRYING_NOTE, RETRYING_NOTE_AFTER_MS, SKIPPED_NOTE } from './handle.js';
export type { TurnFence, TurnHandleOptions } from './handle.js';
export { isDirect, threadOf, turnRequest } from './request.js';
export type { EnvelopeFields, MessageEvent } from './request.js';
export { checkThread, isOwnMessage } from './thread.js';
export type { BotIdentity, ReplyTarget, ThreadCheck } from './thread.js';
export { ReplyWriter } from './writer.js';
export type { PartsLedger, StreamTarget, WriteOutcome, WriterOptions } from './writer.js';
export { cutAt, noteMetadata, partMetadata, partOf, PART_CHARS, splitText, TURN_EVENT_TYPE } from './parts.js';
export type { PartPayload } from './parts.js';
export { stripMention } from './mention.js';
export { editedPrompt } from './edits.js';
export { channelMessageKind, FOLLOW_UP_MAX_MINUTES, FollowUpThreads, parseFollowUps } from './follow-ups.js';
export type { FollowUps, ThreadWhere } from './follow-ups.js';
export type { ChangedEvent, EditedPrompt } from './edits.js';
export { authorOf, BOT_LOOP, BOT_LOOP_NOTE, BotLoops, isTurnOf, loopVerdict, parseAllowBots } from './bots.js';
export type { AllowBots, Author, AuthoredEvent, LoopVerdict } from './bots.js';
export { readHistory } from './history.js';
export { turnFiles } from './files.js';
export { StepBook, stepKey } from './steps.js';
export type { StepRun } from './steps.js';
export type {
  CopyRole,
  HistoryMessage,
  ReplyText,
  ReplyWithBlocks,
  TakeTurn,
  TurnContext,
  TurnEvent,
  TurnFile,
  TurnModule,
  TurnReply,
  TurnRequest,
} from './types.js';
export { BLOCKS_CHUNK_MAX, readChunk, statusOnly, stepTask, TaskBoard, TASK_DISPLAY_MODES } from './tasks.js';
export type {
  BlocksChunk,
  BoardChunk,
  MarkdownTextChunk,
  PlanUpdateChunk,
  ReplyChunk,
  TaskDisplayMode,
  TaskSource,
  TaskStatus,
  TaskUpdateChunk,
} from './tasks.js';
// Slack's AI-app surface: the thinking status, assistant threads, feedback.
export { aiExportsOf, aiExportsProblem, clampLoadingMessages, clampPrompts, defaultTitle, TITLE_MAX } from './ai-exports.js';
export { AiTurn } from './ai-turn.js';
export type { TurnAi } from './ai-turn.js';
export { agentContextOf, AssistantThreads, contextOf, hearsClick, orderOf } from './assistant-threads.js';
export type { ClickVerdict, ThreadStore } from './assistant-threads.js';
export { feedbackOf } from './feedback.js';
export { realTimers, refreshIn, StatusBook, STATUS_REFRESH_MS, ThinkingStatus } from './status.js';
export type { StatusTimers } from './status.js';
export { DEFAULT_STATUS, MAX_LOADING_MESSAGES, MAX_PROMPTS, TURN_NOTE_NAMES } from './types.js';
export type { AiAppExports, AssistantThread, Feedback, FeedbackHelpers, SuggestedPrompt, ThreadContext, TurnNotes } from './types.js';
