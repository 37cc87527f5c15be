/**
 * What the rest of autohub uses of a turn (app/'s listeners and parts, the runner, the bench's stream):
 * the handle a listener answers through, the readers of an event, the AI-app helpers. Named one by one
 * (a name here is a use elsewhere: test/bot/declared-once.test.ts checks it); the bot's own types are the
 * bot contract's (lib/bot/index.ts, `autohub/bot`), declared in ./types.ts and exported there, not here.
 * A test, or a room of lib/ that would make a cycle through this barrel (./handle.ts imports lib/ask,
 * which imports ./parts.ts), imports the file it needs.
 */
export { LATE_NOTE, TurnHandle } from './handle.js';
export type { TurnHandleOptions } from './handle.js';
export { TurnFence } from './fence.js';
export { isDirect, threadOf } from './request.js';
export type { EnvelopeFields, MessageEvent } from './request.js';
export { editedPrompt } from './edits.js';
export { channelMessageKind, FollowUpThreads, parseFollowUps } from './follow-ups.js';
export type { ChangedEvent } from './edits.js';
export { authorOf, BotLoops, isTurnOf } from './bots.js';
export type { AllowBots, AuthoredEvent } from './bots.js';
export { ReplyWriter } from './writer.js';
export { TASK_DISPLAY_MODES } from './tasks.js';
// Slack's AI-app surface: the thinking status, assistant threads, feedback.
export { aiExportsOf, aiExportsProblem, clampPrompts } from './ai-exports.js';
export { agentContextOf, AssistantThreads, contextOf, hearsClick, orderOf } from './assistant-threads.js';
export { feedbackOf } from './feedback.js';
export { StatusBook } from './status.js';
export type { StatusTimers } from './status.js';
