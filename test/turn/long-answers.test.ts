/**
 * A long answer reaches the thread whole and in order, within
 * Slack's limits (`markdown_text` at most 12,000 characters a call; a
 * message a taker-over must be able to rewrite with one chat.update). Before,
 * a 30,000-character answer streamed in 60 chunks ended as one message of
 * about 90 words left streaming, and the same answer after an expired stream
 * became a dead letter (chat.update with `text` over 4,000).
 */
import { describe, expect, it } from 'vitest';
import type { FakeStream } from '../../drill/sim/fake-web-api.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { MemoryStore } from '../../lib/store/index.js';
import { PART_CHARS } from '../../lib/turn/parts.js';
import type { TakeTurn } from '../../lib/bot/index.js';
import { fenceAt } from '../../lib/turn/split.js';
import { messagesFor, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

/** 30,000 characters in 60 chunks of 500, each a numbered sentence-ish run, so order and loss both show. */
const CHUNKS = Array.from({ length: 60 }, (_, i) => `${`${String(i).padStart(2, '0')}:${'word '.repeat(99)}`.slice(0, 499)}\n`);
const WHOLE = CHUNKS.join('');

/** 32,000 characters with a code block from about 4,000 to 20,000: across the first message's 12,000 mark. */
const CODE_CHUNKS = [
  ...Array.from({ length: 8 }, (_, i) => `${`p${i} `.padEnd(498, 'z')}\n\n`),
  '```python\n',
  ...Array.from({ length: 32 }, (_, i) => `${`x${String(i).padStart(2, '0')} = f()`.padEnd(499, ' ')}\n`),
  '```\n\n',
  ...Array.from({ length: 24 }, (_, i) => `${`q${i} `.padEnd(498, 'z')}\n\n`),
];
const CODE_ANSWER = CODE_CHUNKS.join('');
const REOPEN = '```python\n';
/** One chunk longer than a message: a paragraph break at 7,000, a line break at 11,000. */
const ONE_CHUNK = `${'a '.repeat(3_500)}\n\n${'b '.repeat(2_000)}\n${'c '.repeat(5_000)}`;

describe('long answers', () => {
  let reply: 'stream' | 'string' = 'stream';
  let answer: 'words' | 'code' | 'one-chunk' = 'words';
  let n = 0;
  const turn: TakeTurn = async () => {
    const chunks = answer === 'code' ? CODE_CHUNKS : answer === 'one-chunk' ? [ONE_CHUNK] : CHUNKS;
    return reply === 'string'
      ? chunks.join('')
      : (async function* () {
          for (const c of chunks) yield c;
        })();
  };

  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, store: new MemoryStore(), turn });

  const payload = (c: { params: Record<string, string> }) => JSON.parse(c.params.metadata ?? '{}').event_payload as { part: number; final: boolean };
  const textOf = (c: { params: Record<string, string> }) => c.params.text ?? c.params.markdown_text ?? '';

  async function ask(eventId: string): Promise<void> {
    const ack = await deliver(copy.eventsUrl, mentionEnvelope({ eventId, ts: `1700011000.${String(++n).padStart(6, '0')}` }), { signingSecret: SECRET });
    expect(ack.status).toBe(200);
    await turnOver(copy.store, eventId);
  }

  function expectWhole(eventId: string): void {
    const messages = messagesFor(api, eventId).sort((a, b) => payload(a).part - payload(b).part);
    expect(messages.map((m) => payload(m).part)).toEqual([0, 1, 2]);
    expect(messages.map((m) => payload(m).final)).toEqual([false, false, true]);
    for (const m of messages) expect(textOf(m).length).toBeLessThanOrEqual(PART_CHARS);
    expect(messages.map(textOf).join('')).toBe(WHOLE);
    const open = [...api.streams.values()].filter((st: FakeStream) => st.state === 'streaming');
    expect(open).toHaveLength(0);
  }

  it('a 30,000-character streamed answer arrives whole, in order, in three messages of at most 12,000, the last marked final', async () => {
    reply = 'stream';
    await ask('Ev-long-stream');
    expectWhole('Ev-long-stream');
    for (const c of api.calls.filter((c) => c.method.startsWith('chat.'))) expect((c.params.markdown_text ?? '').length).toBeLessThanOrEqual(PART_CHARS);
  });

  it('a 30,000-character answer returned as a string is posted in three messages, whole and in order', async () => {
    reply = 'string';
    await ask('Ev-long-post');
    expectWhole('Ev-long-post');
    for (const post of messagesFor(api, 'Ev-long-post')) expect(post.method).toBe('chat.postMessage');
  });

  it('a long answer in a stream Slack closed early is completed with markdown_text within the limits, nothing left streaming', async () => {
    reply = 'stream';
    api.streamLifeMs = 0;
    try {
      await ask('Ev-long-expired');
    } finally {
      api.streamLifeMs = 300_000;
    }
    expectWhole('Ev-long-expired');
    const updates = api.calls.filter((c) => c.method === 'chat.update');
    expect(updates.length).toBeGreaterThan(0);
    for (const u of updates) {
      expect(u.params.text).toBeUndefined();
      expect((u.params.markdown_text ?? '').length).toBeLessThanOrEqual(PART_CHARS);
    }
  });

  /** The messages of a code answer, in order: each closes any code block it leaves open, the next reopens it; the answer whole once the added markers are taken out. */
  function expectCodeWhole(eventId: string): void {
    const messages = messagesFor(api, eventId)
      .sort((a, b) => payload(a).part - payload(b).part)
      .map(textOf);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const m of messages) {
      expect(m.length).toBeLessThanOrEqual(PART_CHARS);
      expect(fenceAt(m)).toBeUndefined();
    }
    expect(messages.some((m) => m.startsWith(REOPEN))).toBe(true);
    // The answer's own text never reopens its block at a message's start: every reopening (and the closing before it) was added.
    const unsplit = messages.map((m, i) => {
      let text = i > 0 && m.startsWith(REOPEN) ? m.slice(REOPEN.length) : m;
      // Cut at a line break inside the block: the closing is the marker alone.
      if (messages[i + 1]?.startsWith(REOPEN)) text = text.replace(/```$/, '');
      return text;
    });
    expect(unsplit.join('')).toBe(CODE_ANSWER);
  }

  it.each([
    ['posted', 'string', 300_000],
    ['streamed', 'stream', 300_000],
    ['rewritten after Slack closed the stream (as a takeover rewrites)', 'stream', 0],
  ] as const)(
    'a 32,000-character answer with a code block across the 12,000 mark, %s: no message ends inside the block, the next reopens it (before: message 1 opened it, message 2 closed it)',
    async (_how, how, lifeMs) => {
      reply = how;
      answer = 'code';
      api.streamLifeMs = lifeMs;
      try {
        await ask(`Ev-code-${how}-${lifeMs}`);
      } finally {
        api.streamLifeMs = 300_000;
        answer = 'words';
      }
      expectCodeWhole(`Ev-code-${how}-${lifeMs}`);
    },
  );

  it('a streamed first chunk longer than a message is cut where a post would be (the paragraph break), not topped up to a later line', async () => {
    reply = 'stream';
    answer = 'one-chunk';
    try {
      await ask('Ev-one-chunk');
    } finally {
      answer = 'words';
    }
    const texts = messagesFor(api, 'Ev-one-chunk')
      .sort((a, b) => payload(a).part - payload(b).part)
      .map(textOf);
    expect(texts[0]).toBe(`${'a '.repeat(3_500)}\n\n`);
    expect(texts.join('')).toBe(ONE_CHUNK);
  });
});
