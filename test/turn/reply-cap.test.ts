/**
 * Bounds a person can see: the longest answer (AUTOHUB_MAX_REPLY_CHARS,
 * 40,000 by default) ends with a short "answer cut" note instead of rolling
 * over into message after message (before: a 1,000,000-character answer
 * posted 84 messages). Pure parts, then on a real copy.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { MemoryStore } from '../../lib/store/index.js';
import type { TakeTurn } from '../../lib/bot/index.js';
import { ANSWER_CUT_NOTE, capChunks, capText, DEFAULT_MAX_REPLY_CHARS } from '../../lib/turn/reply-cap.js';
import { fenceAt } from '../../lib/turn/split.js';
import { messagesFor, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

const words = (n: number) => 'word '.repeat(Math.ceil(n / 5)).slice(0, n);

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const c of chunks) text += c;
  return text;
}

describe('the longest answer', () => {
  it('a text within the bound is shown whole, with no note', () => {
    expect(capText(words(40_000), 40_000)).toEqual({ text: words(40_000), cut: false });
  });

  it('a longer text is cut within the bound where it reads well, then the note', () => {
    const { text, cut } = capText(`${words(30_000)}\n\n${words(30_000)}`, 40_000);
    expect(cut).toBe(true);
    expect(text.endsWith(`\n\n${ANSWER_CUT_NOTE}`)).toBe(true);
    expect(text.length).toBeLessThanOrEqual(40_000 + 2 + ANSWER_CUT_NOTE.length);
    // The paragraph break at 30,002 is in the second half of the room: the cut is there.
    expect(text).toBe(`${words(30_000)}\n\n\n\n${ANSWER_CUT_NOTE}`);
  });

  it('a cut inside a code block closes it before the note', () => {
    const { text } = capText(`\`\`\`sh\n${'echo hi\n'.repeat(10_000)}`, 40_000);
    expect(fenceAt(text)).toBeUndefined();
    expect(text.endsWith(`\`\`\`\n\n${ANSWER_CUT_NOTE}`)).toBe(true);
  });

  it("a stream is passed on until the bound, then cut with the note, and the bot's generator is stopped there (its finally runs)", async () => {
    let yielded = 0;
    let finished = false;
    const endless = (async function* () {
      try {
        for (;;) {
          yielded += 1;
          yield words(1_000);
        }
      } finally {
        finished = true;
      }
    })();
    const text = await collect(capChunks(endless, 40_000));
    expect(text.endsWith(ANSWER_CUT_NOTE)).toBe(true);
    expect(text.length).toBeLessThanOrEqual(40_000 + 2 + ANSWER_CUT_NOTE.length);
    expect(finished).toBe(true);
    expect(yielded).toBe(41);
  });
});

describe('the longest answer, on a real copy', () => {
  let reply: 'stream' | 'string' = 'string';
  const MILLION = words(1_000_000);
  const turn: TakeTurn = async () =>
    reply === 'string'
      ? MILLION
      : (async function* () {
          for (let i = 0; i < 1_000; i++) yield words(1_000);
        })();
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, store: new MemoryStore(), turn });
  let n = 0;

  it.each(['string', 'stream'] as const)(
    'a 1,000,000-character answer (%s) is at most 5 messages, the last ending with the note (before: 84 messages)',
    async (how) => {
      reply = how;
      const eventId = `Ev-cap-${how}`;
      const ack = await deliver(copy.eventsUrl, mentionEnvelope({ eventId, ts: `1700012000.${String(++n).padStart(6, '0')}` }), { signingSecret: SECRET });
      expect(ack.status).toBe(200);
      await turnOver(copy.store, eventId);
      const texts = messagesFor(api, eventId).map((m) => m.params.text ?? m.params.markdown_text ?? '');
      expect(texts.length).toBeLessThanOrEqual(Math.ceil(DEFAULT_MAX_REPLY_CHARS / 12_000) + 1);
      expect(texts.join('').length).toBeLessThanOrEqual(DEFAULT_MAX_REPLY_CHARS + 200);
      expect(texts.at(-1)!.endsWith(ANSWER_CUT_NOTE)).toBe(true);
    },
  );
});
