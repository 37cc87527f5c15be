/**
 * What a bot's `takeTurn` returned, read as a reply, or refused with a
 * ReplyInvalidError that says what came back and what may: the bot's mistake
 * named as the bot's (before: `TypeError: Cannot use 'in' operator to search
 * for 'Symbol(Symbol.asyncIterator)' in 42`, which reads as autohub's).
 */
import { ReplyInvalidError } from '../errors/index.js';
import type { ReplyText } from './types.js';

export interface ReplyShape {
  text: ReplyText;
  blocks?: readonly Record<string, unknown>[];
}

const ALLOWED = 'a string, an async iterable of text, { text, blocks } or nothing';

/** The value as a person reads it: `a number (42)`, `an object with keys answer, extra`, `a synchronous iterable (an array)`. */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return `an array (${value.length} item${value.length === 1 ? '' : 's'}; a stream is an async iterable: an async function*)`;
  if (typeof value === 'function') return 'a function (call it, or return what it returns)';
  if (typeof value === 'object' && value !== null) {
    if (typeof (value as { then?: unknown }).then === 'function') return 'a promise inside the reply';
    const keys = Object.keys(value);
    return keys.length === 0 ? 'an empty object' : `an object with ${keys.length === 1 ? 'key' : 'keys'} ${keys.slice(0, 5).join(', ')}`;
  }
  const shown = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
  const kind = typeof value;
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} (${shown.length > 40 ? `${shown.slice(0, 40)}...` : shown})`;
}

function isText(value: unknown): value is ReplyText {
  return typeof value === 'string' || (typeof value === 'object' && value !== null && Symbol.asyncIterator in value);
}

/** The reply `takeTurn` returned, or undefined for none; throws ReplyInvalidError for anything else. Pure. */
export function replyShape(reply: unknown): ReplyShape | undefined {
  if (reply === undefined || reply === null || reply === '') return undefined;
  if (isText(reply)) return { text: reply };
  if (typeof reply === 'object' && !Array.isArray(reply) && 'text' in reply) {
    const { text, blocks } = reply as { text: unknown; blocks?: unknown };
    if (!isText(text))
      throw new ReplyInvalidError(`takeTurn returned { text } whose text is ${describeValue(text)}; text may be a string or an async iterable of text chunks`);
    if (blocks !== undefined && !Array.isArray(blocks))
      throw new ReplyInvalidError(`takeTurn returned { blocks } that is ${describeValue(blocks)}; blocks, when given, is an array of Block Kit blocks`);
    return { text, ...(blocks ? { blocks: blocks as readonly Record<string, unknown>[] } : {}) };
  }
  throw new ReplyInvalidError(`takeTurn returned ${describeValue(reply)}; it may return ${ALLOWED}`);
}
