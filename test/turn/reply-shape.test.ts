/**
 * A bot that returns what is not a reply hears what it returned and what it may return, as its own
 * mistake, and the turn is a dead letter saying so. Before: `TypeError: Cannot use 'in' operator to
 * search for 'Symbol(Symbol.asyncIterator)' in 42`, which read as autohub's.
 */
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { classifyTurnFailure, ReplyInvalidError } from '../../lib/errors/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import type { TakeTurn } from '../../lib/bot/index.js';
import { replyShape } from '../../lib/turn/reply-shape.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

async function* chunks() {
  yield 'a';
}

describe('replyShape', () => {
  it.each([
    [42, 'takeTurn returned a number (42); it may return a string, an async iterable of text, { text, blocks } or nothing'],
    [true, 'takeTurn returned a boolean (true); it may return'],
    [['a', 'b'], 'takeTurn returned an array (2 items; a stream is an async iterable: an async function*)'],
    [{ answer: 'hi' }, 'takeTurn returned an object with key answer; it may return'],
    [{ text: 42 }, 'takeTurn returned { text } whose text is a number (42); text may be a string or an async iterable of text chunks'],
    [{ text: 'hi', blocks: 'none' }, 'takeTurn returned { blocks } that is a string ("none"); blocks, when given, is an array of Block Kit blocks'],
    [() => 'hi', 'takeTurn returned a function (call it, or return what it returns)'],
  ])('%j is refused, saying what came back and what may', (value, message) => {
    expect(() => replyShape(value)).toThrow(ReplyInvalidError);
    expect(() => replyShape(value)).toThrow(message);
  });

  it('every reply the contract allows is read as before', () => {
    const stream = chunks();
    expect(replyShape('hi')).toEqual({ text: 'hi' });
    expect(replyShape(stream)).toEqual({ text: stream });
    expect(replyShape({ text: 'hi', blocks: [{ type: 'divider' }] })).toEqual({ text: 'hi', blocks: [{ type: 'divider' }] });
    for (const none of [undefined, null, '']) expect(replyShape(none)).toBeUndefined();
  });

  it("is a dead letter whose reason is the bot's, naming what it returned", () => {
    expect(classifyTurnFailure(new ReplyInvalidError('takeTurn returned a number (42); it may return x'))).toEqual({
      kind: 'permanent',
      ambiguous: false,
      reason: 'bot: takeTurn returned a number (42); it may return x',
    });
  });
});

describe('a copy running a bot that returns 42', () => {
  const store = new MemoryStore();
  const turn = (() => 42) as unknown as TakeTurn;
  const api = useFakeWebApi();
  const copy = useCopy({ role: 'hub', api, store, turn });

  it('dead-letters the turn at once, its reason saying what the bot returned and what it may', async () => {
    await deliver(copy.eventsUrl, mentionEnvelope({ eventId: 'Ev-42', ts: '1700019500.000001' }), { signingSecret: SECRET });
    await eventually(async () => ((await store.listDead(10)) ?? []).length === 1, 'the dead letter');
    const [dead] = (await store.listDead(10))!;
    expect(dead!.reason).toBe('bot: takeTurn returned a number (42); it may return a string, an async iterable of text, { text, blocks } or nothing');
    expect(JSON.stringify(copy.lines)).not.toContain("Cannot use 'in' operator");
  });
});
