/**
 * A bot module's AI-app exports (`status`, `loadingMessages`, `prompts`,
 * `promptsTitle`, `greeting`, `title`, `onFeedback`, `notes`), checked once when the module loads, and the
 * clamps applied to what a function export returns at run time. Pure.
 *
 * Slack's limits: at most 10 loading messages
 * (https://docs.slack.dev/reference/methods/assistant.threads.setStatus) and
 * 4 suggested prompts, each with a `title` and a `message`
 * (https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts).
 */
import { MAX_LOADING_MESSAGES, MAX_PROMPTS, TURN_NOTE_NAMES, type AiAppExports, type SuggestedPrompt } from './types.js';

/** A note autohub posts is at most this long in a module's words: chat.update's `text` limit, so any note fits any call. */
export const NOTE_MAX = 4_000;

/** Why an export cannot be used ("loadingMessages, when exported, to be ..."), or undefined when every one is fine. */
export function aiExportsProblem(exports: Record<string, unknown>): string | undefined {
  const { status, loadingMessages, prompts, title, onFeedback } = exports;
  if (status !== undefined && (typeof status !== 'string' || status.trim() === '')) {
    return `status, when exported, to be a non-empty string, but it is ${describe(status)}`;
  }
  if (loadingMessages !== undefined && typeof loadingMessages !== 'function') {
    if (!Array.isArray(loadingMessages) || !loadingMessages.every((m) => typeof m === 'string' && m.trim() !== '')) {
      return `loadingMessages, when exported, to be an array of non-empty strings or a function (request), but it is ${describe(loadingMessages)}`;
    }
    if (loadingMessages.length > MAX_LOADING_MESSAGES) {
      return `loadingMessages to hold at most ${MAX_LOADING_MESSAGES} strings (Slack's limit), but it holds ${loadingMessages.length}`;
    }
  }
  if (prompts !== undefined && typeof prompts !== 'function') {
    if (!Array.isArray(prompts) || !prompts.every(isPrompt)) {
      return `prompts, when exported, to be an array of { title, message } strings or a function (thread), but it is ${describe(prompts)}`;
    }
    if (prompts.length > MAX_PROMPTS) return `prompts to hold at most ${MAX_PROMPTS} prompts (Slack's limit), but it holds ${prompts.length}`;
  }
  const { promptsTitle, greeting, notes } = exports;
  if (promptsTitle !== undefined && (typeof promptsTitle !== 'string' || promptsTitle.trim() === '')) {
    return `promptsTitle, when exported, to be a non-empty string, but it is ${describe(promptsTitle)}`;
  }
  if (greeting !== undefined && typeof greeting !== 'function' && (typeof greeting !== 'string' || greeting.trim() === '')) {
    return `greeting, when exported, to be a non-empty string or a function (thread), but it is ${describe(greeting)}`;
  }
  if (notes !== undefined) {
    if (typeof notes !== 'object' || notes === null || Array.isArray(notes))
      return `notes, when exported, to be an object of strings by name, but it is ${describe(notes)}`;
    for (const [name, text] of Object.entries(notes)) {
      if (!(TURN_NOTE_NAMES as readonly string[]).includes(name))
        return `notes to name only ${TURN_NOTE_NAMES.join(', ')}, but it names ${JSON.stringify(name)}`;
      if (typeof text !== 'string' || text.trim() === '' || text.length > NOTE_MAX) {
        return `notes.${name} to be a non-empty string of at most ${NOTE_MAX} characters, but it is ${typeof text === 'string' ? `${text.length} characters` : describe(text)}`;
      }
    }
  }
  for (const [name, value] of [
    ['title', title],
    ['onFeedback', onFeedback],
  ] as const) {
    if (value !== undefined && typeof value !== 'function') return `${name}, when exported, to be a function, but it is ${describe(value)}`;
  }
  return undefined;
}

/** The AI-app exports of a module that passed `aiExportsProblem`, as the TurnModule holds them. */
export function aiExportsOf(exports: Record<string, unknown>): AiAppExports {
  const out: AiAppExports = {};
  if (typeof exports.status === 'string') out.status = exports.status;
  if (exports.loadingMessages !== undefined) out.loadingMessages = exports.loadingMessages as NonNullable<AiAppExports['loadingMessages']>;
  if (exports.prompts !== undefined) out.prompts = exports.prompts as NonNullable<AiAppExports['prompts']>;
  if (typeof exports.title === 'function') out.title = exports.title as NonNullable<AiAppExports['title']>;
  if (typeof exports.onFeedback === 'function') out.onFeedback = exports.onFeedback as NonNullable<AiAppExports['onFeedback']>;
  if (typeof exports.promptsTitle === 'string') out.promptsTitle = exports.promptsTitle;
  if (exports.greeting !== undefined) out.greeting = exports.greeting as NonNullable<AiAppExports['greeting']>;
  if (exports.notes !== undefined) out.notes = { ...(exports.notes as NonNullable<AiAppExports['notes']>) };
  return out;
}

function isPrompt(p: unknown): p is SuggestedPrompt {
  const o = p as Partial<SuggestedPrompt> | null;
  return typeof o === 'object' && o !== null && typeof o.title === 'string' && o.title !== '' && typeof o.message === 'string' && o.message !== '';
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? 'null' : `a ${typeof value}`;
}

/** What a `loadingMessages` function returned, as Slack takes it: non-empty strings, the first 10. */
export function clampLoadingMessages(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((m): m is string => typeof m === 'string' && m.trim() !== '').slice(0, MAX_LOADING_MESSAGES);
}

/** What a `prompts` function returned, as Slack takes it: well-formed prompts, the first 4. */
export function clampPrompts(value: unknown): SuggestedPrompt[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isPrompt)
    .slice(0, MAX_PROMPTS)
    .map((p) => ({ title: p.title, message: p.message }));
}

/** Slack's thread titles are short: the default title is the message's first line, trimmed, at most this long. */
export const TITLE_MAX = 120;

/** The default title of an assistant thread: the first non-empty line of the person's message, trimmed (cut at TITLE_MAX). */
export function defaultTitle(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 3).trimEnd()}...` : line;
}
