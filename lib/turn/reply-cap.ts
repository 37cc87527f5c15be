/**
 * The longest answer a person is shown (AUTOHUB_MAX_REPLY_CHARS): past it the
 * answer is cut where it reads well (lib/turn/split.ts: a code block open
 * there is closed) and ends with a short note, instead of rolling over into
 * message after message (a runaway model's 1,000,000 characters were 84).
 * A streamed answer stops being read there: the bot's iterator is returned,
 * so a generator's `finally` runs and a model stream it wraps can stop. Pure
 * but for that.
 */
import { closing, cutIn, fenceAt } from './split.js';
import type { ReplyText } from './types.js';

/** The default bound: a few messages (12,000 characters each). */
export const DEFAULT_MAX_REPLY_CHARS = 40_000;

/** What ends an answer that was cut. */
export const ANSWER_CUT_NOTE = '_(answer cut: it was longer than I post in one reply)_';

/** `text` as shown: whole when it fits in `max`, else cut, with the note. */
export function capText(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  return { text: cutWith('', text, max), cut: true };
}

/** The last piece of a cut answer: as much of `next` as fits after `kept` (`max` in all), its code block closed, then the note. */
function cutWith(kept: string, next: string, max: number): string {
  const lineAt = kept.lastIndexOf('\n') + 1;
  const cut = cutIn(next, max - kept.length, fenceAt(kept.slice(0, lineAt)), kept.slice(lineAt));
  const piece = next.slice(0, cut.at);
  return `${piece}${cut.fence ? closing(kept + piece, cut.fence) : ''}\n\n${ANSWER_CUT_NOTE}`;
}

/** `chunks` as shown: passed on while they fit in `max`, then the cut and the note, and the source is read no further. */
export async function* capChunks<T>(chunks: AsyncIterable<string | T>, max: number, onCut?: () => void): AsyncIterable<string | T> {
  let kept = '';
  for await (const item of chunks) {
    // Task and plan chunks (lib/turn/tasks.ts) are not text: passed on as they are; a markdown_text chunk counts as text.
    const md = item as { type?: unknown; text?: unknown };
    if (typeof item !== 'string' && !(md?.type === 'markdown_text' && typeof md.text === 'string')) {
      yield item;
      continue;
    }
    const chunk = typeof item === 'string' ? item : (md.text as string);
    if (kept.length + chunk.length <= max) {
      kept += chunk;
      yield chunk;
      continue;
    }
    onCut?.();
    yield cutWith(kept, chunk, max);
    // Leaving the loop returns the bot's iterator: its stream is not read (or paid for) any further.
    return;
  }
}

/** A reply's text, capped at `max` characters; `onCut` is told once when it was cut. */
export function capReply(text: ReplyText, max: number, onCut?: () => void): ReplyText {
  if (typeof text !== 'string') return capChunks(text, max, onCut);
  const capped = capText(text, max);
  if (capped.cut) onCut?.();
  return capped.text;
}
