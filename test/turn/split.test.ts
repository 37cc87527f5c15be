/**
 * Splits that read well (lib/turn/split.ts): a long answer cut into messages
 * never leaves a code block open across two (before: message 1 opened the
 * fence and message 2 closed it, and both rendered wrong), prefers a
 * paragraph, then a block's start, and never cuts an emoji in half. Tables
 * for the cases a person sees, properties over generated markdown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutIn, fenceAt, rollover, splitPieces, splitText, startOf, type Rollover } from '../../lib/turn/split.js';

const PART = 12_000;
const prose = (n: number) => 'lorem ipsum dolor sit amet. '.repeat(Math.ceil(n / 28)).slice(0, n);
const codeLines = (n: number) =>
  Array.from({ length: Math.ceil(n / 20) }, (_, i) => `x${i} = call(${i})  # c`)
    .join('\n')
    .slice(0, n);

describe('a code block across a cut', () => {
  it('a 32,000-character answer with a code block across the 12,000 mark: message 1 closes it, message 2 reopens it with its language', () => {
    const answer = `${prose(4_000)}\n\n\`\`\`python\n${codeLines(16_000)}\n\`\`\`\n\n${prose(12_000)}`;
    const messages = splitText(answer, PART);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const m of messages) {
      expect(m.length).toBeLessThanOrEqual(PART);
      // Every message renders on its own: no code block left open at its end.
      expect(fenceAt(m)).toBeUndefined();
    }
    expect(messages[0]!.endsWith('\n```')).toBe(true);
    expect(messages[1]!.startsWith('```python\n')).toBe(true);
    expect(
      splitPieces(answer, PART)
        .map((p) => p.body)
        .join(''),
    ).toBe(answer);
  });

  it('a code block that can start in the next message is not split: the cut is the paragraph before it', () => {
    const answer = `${prose(9_000)}\n\n\`\`\`js\n${codeLines(5_000)}\n\`\`\`\n${prose(2_000)}`;
    const [first, second] = splitText(answer, PART);
    expect(first).toBe(`${prose(9_000)}\n\n`);
    expect(second!.startsWith('```js\n')).toBe(true);
  });

  it.each([
    ['a tilde fence', '~~~', 'sh'],
    ['a four-backtick fence holding ``` lines', '````', 'markdown'],
    ['a fence with no language', '```', ''],
  ])('%s is closed and reopened with its own marker', (_what, marker, info) => {
    const inner = marker === '````' ? codeLines(3_000).replaceAll('# c', '\n```\n') : codeLines(3_000);
    const answer = `${prose(100)}\n${marker}${info}\n${inner}\n${marker}\n`;
    const messages = splitText(answer, 1_000);
    for (const m of messages) expect(fenceAt(m)).toBeUndefined();
    expect(messages[1]!.startsWith(`${marker}${info}\n`)).toBe(true);
    expect(messages[0]!.endsWith(`\n${marker}`)).toBe(true);
  });

  it('inline triple backticks on one line (```a```) open no block: nothing is added', () => {
    const answer = `${'say ```a``` then '.repeat(200)}`;
    const messages = splitText(answer, 1_000);
    expect(messages.join('')).toBe(answer);
  });
});

describe('lists, quotes and paragraphs', () => {
  it('a list item with continuation lines is cut before an item, not inside one', () => {
    const item = (i: number) => `- item ${i} starts here\n  and goes on, indented\n  and on\n`;
    const answer = Array.from({ length: 200 }, (_, i) => item(i)).join('');
    for (const m of splitText(answer, 1_000).slice(1)) expect(m.startsWith('- item ')).toBe(true);
  });

  it('a block quote is cut between its lines: every message starts a quoted line', () => {
    const answer = Array.from({ length: 300 }, (_, i) => `> quoted line ${i} of a long block quote`).join('\n');
    for (const m of splitText(answer, 1_000)) expect(m.startsWith('> ')).toBe(true);
  });

  it('a paragraph break in the second half wins over a later line break', () => {
    const answer = `${prose(700)}\n\n${prose(200)}\n${prose(500)}`;
    expect(cutIn(answer, 1_000).at).toBe(702);
  });

  it('with no break in reach: a space, else the room end, never inside a surrogate pair', () => {
    expect(cutIn(`${'a'.repeat(990)} ${'b'.repeat(100)}`, 1_000).at).toBe(991);
    const emoji = '😀'.repeat(1_000);
    for (const max of [999, 1_000, 1_001]) {
      const at = cutIn(emoji, max).at;
      expect(at % 2).toBe(0);
      expect(at).toBeLessThanOrEqual(max);
    }
  });
});

/** The writer's stream (lib/turn/writer.ts #stream) with Slack taken out: the messages it would leave, and the answer's own text in them. */
function stream(chunks: readonly string[], max: number): { messages: string[]; body: string } {
  const messages: string[] = [];
  let held = '';
  let pending = '';
  let body = '';
  const start = (head: string) => {
    const s = startOf(head, pending, max);
    held = head + pending.slice(0, s.take);
    body += pending.slice(0, s.take);
    pending = pending.slice(s.take);
    return s.full;
  };
  const roll = (planned?: Rollover) => {
    for (let plan = planned ?? rollover(held, pending, max); plan; ) {
      body += pending.slice(0, plan.take);
      messages.push(held + pending.slice(0, plan.take) + plan.tail);
      pending = pending.slice(plan.take);
      plan = start(plan.head) ?? rollover(held, pending, max);
    }
  };
  for (const [i, chunk] of chunks.entries()) {
    pending += chunk;
    if (i === 0) roll(start(''));
    else roll();
    held += pending;
    body += pending;
    pending = '';
  }
  messages.push(held);
  return { messages, body };
}

describe('the stream rolls over the same way', () => {
  it('a message started full at a paragraph break is stopped there, not topped up to a worse cut', () => {
    const answer = `${prose(7_000)}\n\n${prose(4_000)} ${prose(6_000)}`;
    expect(stream([answer], PART).messages[0]).toBe(splitText(answer, PART)[0]);
    expect(stream([answer], PART).messages[0]!.endsWith('\n\n')).toBe(true);
  });

  it('a message holding an open code block closes it at the rollover and the next reopens it', () => {
    const held = `intro\n\`\`\`ts\n${codeLines(900)}\n`;
    const r = rollover(held, `${codeLines(400)}\n`, 1_000)!;
    expect(r.tail).toBe('```');
    expect(r.head).toBe('```ts\n');
    expect((held + `${codeLines(400)}\n`.slice(0, r.take) + r.tail).length).toBeLessThanOrEqual(1_000);
    expect(fenceAt(held + `${codeLines(400)}\n`.slice(0, r.take) + r.tail)).toBeUndefined();
  });

  it('no rollover while the text and the closing of its open block fit', () => {
    // 6 characters and the closing (\n```): 10.
    expect(rollover('```\na', 'b', 10)).toBeUndefined();
    expect(rollover('```\na', 'bc', 10)).toBeDefined();
  });
});

/** Markdown-ish text: words, breaks, fences, list items, quotes, emoji. */
const markdown = fc
  .array(
    fc.constantFrom('word ', 'longerword ', '\n', '\n\n', '```py\n', '```\n', '~~~\n', '````\n', '- item\n', '  more\n', '> quote\n', '😀', '1. one\n', 'x'),
    { maxLength: 400 },
  )
  .map((parts) => parts.join(''));

describe('properties', () => {
  it('every message fits, nothing is lost or reordered, and no message but one the answer itself leaves open ends inside a code block', () => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: 40, max: 400 }), (text, max) => {
        const pieces = splitPieces(text, max);
        expect(pieces.map((p) => p.body).join('')).toBe(text);
        let before = '';
        for (const [i, p] of pieces.entries()) {
          const message = p.head + p.body + p.tail;
          expect(message.length).toBeLessThanOrEqual(max);
          const open = fenceAt(before);
          // A message continuing a code block reopens it as it was opened.
          if (i > 0 && p.head) expect(open).toBeDefined();
          before += p.body;
          if (i < pieces.length - 1) expect(fenceAt(message)).toBeUndefined();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('no message ends on the first half of a surrogate pair, nor starts on the second', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('😀', 'a', ' ', '🎉🎉'), { maxLength: 600 }), fc.integer({ min: 10, max: 200 }), (parts, max) => {
        const text = parts.join('');
        for (const m of splitText(text, max)) {
          expect(/[\ud800-\udbff]$/.test(m)).toBe(false);
          expect(/^[\udc00-\udfff]/.test(m)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a streamed answer rolled over as the writer does (rollover, startOf) is as a post: within the limit, each closed, nothing lost', () => {
    fc.assert(
      fc.property(fc.array(markdown, { maxLength: 12 }), fc.integer({ min: 60, max: 400 }), (chunks, max) => {
        const { messages, body } = stream(chunks, max);
        expect(body).toBe(chunks.join(''));
        for (const m of messages) expect(m.length).toBeLessThanOrEqual(max);
        for (const m of messages.slice(0, -1)) expect(fenceAt(m)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
