/**
 * Where a long answer is cut into messages so each still reads well. Pure.
 *
 *   - A message that ends inside a code block (a ``` or ~~~ fence at a line's
 *     start, CommonMark's rule: https://spec.commonmark.org/0.31.2/#fenced-code-blocks)
 *     closes it, and the next message opens it again with the same marker and
 *     language, so both render as code.
 *   - A cut prefers, within the second half of the room: a paragraph break
 *     outside a code block; then a line break before a line that starts a
 *     block of its own (not an indented continuation of a list item); then a
 *     line break inside a code block (closed and reopened); then any line
 *     break; then a space; else the room's end. A code block that can start
 *     in the next message is not split at all; a list or a block quote is cut
 *     between items where a line break is near.
 *   - Never inside a surrogate pair: an emoji is never cut in half.
 */

/** A code block left open: its fence's marker (``` or ~~~, 3 or more) and the info string after it (the language). */
export interface Fence {
  marker: string;
  info: string;
}

const OPENING = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const CLOSING = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** The fence state after one line (without its line break), from `open`. */
function afterLine(open: Fence | undefined, line: string): Fence | undefined {
  if (open) {
    const m = CLOSING.exec(line);
    return m && m[1]![0] === open.marker[0] && m[1]!.length >= open.marker.length ? undefined : open;
  }
  const m = OPENING.exec(line);
  // A backtick fence's info string holds no backtick (```a``` on one line is inline code, not a block).
  if (!m || (m[1]![0] === '`' && m[2]!.includes('`'))) return undefined;
  return { marker: m[1]!, info: m[2]!.trim() };
}

/** The code block open at the end of `text`, which begins inside `open` (a last line without its break counts as a line). */
export function fenceAt(text: string, open?: Fence): Fence | undefined {
  let state = open;
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    state = afterLine(state, text.slice(start, nl === -1 ? text.length : nl));
    if (nl === -1) return state;
    start = nl + 1;
  }
}

/** What closes `fence` after `text`: its marker on a line of its own. */
export function closing(text: string, fence: Fence): string {
  return `${text === '' || text.endsWith('\n') ? '' : '\n'}${fence.marker}`;
}

/** What opens `fence` again at the start of the next message. */
export function reopening(fence: Fence): string {
  return `${fence.marker}${fence.info}\n`;
}

/** A cut: the first `at` characters go, and `fence` is the code block open there (closed after them, reopened after). */
export interface Cut {
  at: number;
  fence: Fence | undefined;
}

/** A line that continues the one before it rather than starting a block: indented, and not a list item of its own. */
const CONTINUATION = /^[ \t]+(?![-*+] |\d{1,9}[.)] )\S/;

/** Characters a closing after `fence` takes: its marker, on a new line unless the piece ends one. */
function closeLen(fence: Fence | undefined, endsLine: boolean): number {
  return fence ? fence.marker.length + (endsLine ? 0 : 1) : 0;
}

/**
 * Where to cut `text` so the first piece, with what closes a code block open
 * there, is at most `max` characters. `open`: the code block open before
 * `text`; `lead`: the start of the line `text` continues, when what came
 * before did not end a line (a fence is only a fence at a line's start).
 */
export function cutIn(text: string, max: number, open?: Fence, lead = ''): Cut {
  if (max <= 0) return { at: 0, fence: open };
  const floor = Math.floor(max / 2);
  let best: (Cut & { rank: number }) | undefined;
  let state = open;
  // The longest marker met: a mid-line cut keeps room to close it (it may be inside a block that line opens).
  let longest = open ? open.marker.length : 0;
  for (let start = 0; start <= max; ) {
    const nl = text.indexOf('\n', start);
    const line = (start === 0 ? lead : '') + text.slice(start, nl === -1 ? text.length : nl);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (marker) longest = Math.max(longest, marker[1]!.length);
    state = afterLine(state, line);
    if (nl === -1 || nl + 1 > max) break;
    const at = nl + 1;
    if (at >= floor && at + closeLen(state, true) <= max) {
      const after = text.indexOf('\n', at);
      const next = text.slice(at, after === -1 ? text.length : after);
      const paragraph = nl > 0 && text[nl - 1] === '\n';
      // Paragraph break, then a block's start, then a line inside a code block, then an indented continuation.
      const rank = state ? 3 : paragraph ? 5 : CONTINUATION.test(next) ? 2 : 4;
      if (!best || rank >= best.rank) best = { at, fence: state, rank };
    }
    start = at;
  }
  if (best) return { at: best.at, fence: best.fence };
  const reserve = longest > 0 ? longest + 1 : 0;
  const space = text.lastIndexOf(' ', max - reserve - 1);
  let at = space + 1 >= Math.max(1, floor) ? space + 1 : Math.max(0, Math.min(text.length, max - reserve));
  // Never between a surrogate pair's halves: an emoji is never cut in half.
  const code = text.charCodeAt(at - 1);
  if (at > 0 && at < text.length && code >= 0xd800 && code <= 0xdbff) at -= 1;
  const fence = fenceAt(lead + text.slice(0, at), open);
  if (fence && at + closeLen(fence, at === 0 ? lead === '' : text[at - 1] === '\n') > max) return { at: 0, fence: open };
  return { at, fence };
}

/** A fence whose reopening would crowd a message (an info string of thousands of characters) is not carried over. */
function carried(fence: Fence | undefined, max: number): Fence | undefined {
  return fence && reopening(fence).length + fence.marker.length + 1 <= max / 4 ? fence : undefined;
}

/** One message of a split answer: `head` (a code block reopened) + `body` (the answer's own text) + `tail` (that block closed). */
export interface Piece {
  head: string;
  body: string;
  tail: string;
}

/**
 * `text` in messages of at most `max` characters, in order: each that ends
 * inside a code block closes it, and the next reopens it. The bodies, joined,
 * are `text` (an empty text is one empty piece).
 */
export function splitPieces(text: string, max: number): Piece[] {
  const pieces: Piece[] = [];
  let rest = text;
  let open: Fence | undefined;
  for (;;) {
    const head = open ? reopening(open) : '';
    if (rest.length + head.length <= max) {
      pieces.push({ head, body: rest, tail: '' });
      return pieces;
    }
    let cut = cutIn(rest, max - head.length, open);
    // Always some progress: a room too small for a closing line takes one character (or a surrogate pair) unclosed.
    if (cut.at === 0) cut = { at: /[\ud800-\udbff]/.test(rest[0] ?? '') ? 2 : 1, fence: undefined };
    const body = rest.slice(0, cut.at);
    const fence = carried(cut.fence, max);
    pieces.push({ head, body, tail: fence ? closing(head + body, fence) : '' });
    rest = rest.slice(cut.at);
    open = fence;
  }
}

/** As splitPieces, each message's whole text. */
export function splitText(text: string, max: number): string[] {
  return splitPieces(text, max).map((p) => p.head + p.body + p.tail);
}

/** How a streamed message rolls over: `take` more characters go into it, `tail` closes it, `head` opens the next. */
export interface Rollover {
  take: number;
  tail: string;
  head: string;
}

/**
 * A streamed message holds `held` (in Slack already: it cannot change) and
 * `pending` is more of the answer. Undefined while `held + pending` still fits
 * in `max` with room to close a code block left open; else how it rolls over.
 */
export function rollover(held: string, pending: string, max: number): Rollover | undefined {
  const whole = held + pending;
  const open = fenceAt(whole);
  if (whole.length + (open ? closing(whole, open).length : 0) <= max) return undefined;
  const lineAt = held.lastIndexOf('\n') + 1;
  const cut = cutIn(pending, max - held.length, fenceAt(held.slice(0, lineAt)), held.slice(lineAt));
  const fence = carried(cut.fence, max);
  const body = pending.slice(0, cut.at);
  return { take: cut.at, tail: fence ? closing(held + body, fence) : '', head: fence ? reopening(fence) : '' };
}

/**
 * How a new streamed message starting with `head` begins: `take` characters
 * of `pending` (all that fit, cut where it reads well, at least one), and
 * `full`, when that cut left more: the message is full as planned, and is
 * stopped at once with the rollover's closing (take 0).
 */
export function startOf(head: string, pending: string, max: number): { take: number; full: Rollover | undefined } {
  const plan = rollover(head, pending, max);
  if (!plan) return { take: pending.length, full: undefined };
  if (plan.take > 0) return { take: plan.take, full: { ...plan, take: 0 } };
  // A room too small for anything that reads well: one character (or a surrogate pair), and plan again.
  return { take: Math.min(pending.length, /[\ud800-\udbff]/.test(pending[0] ?? '') ? 2 : 1), full: undefined };
}
