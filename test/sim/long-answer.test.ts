/** The drill's reading of a long answer in a thread: its parts count as one reply, and it must arrive whole and in order. */
import { describe, expect, it } from 'vitest';
import { isContinuation, isWholeAnswer } from '../../drill/score.js';

const OPENING = 'Hi <@U0PERSON>, I got that. Answered by the hub (drill-hub). ';

describe("the drill's check of a long answer", () => {
  it.each([
    ['the short demo answer', ['Hi <@U0PERSON>, I got that. Answered by the hub (drill-hub).'], true],
    ['one message, every word and the end mark', [`${OPENING}w1 w2 w3 (end of answer: 3 words)`], true],
    ['split over messages mid-word', [`${OPENING}w1 w`, '2 w3', ' (end of answer: 3 words)'], true],
    ['split between words, the spaces dropped', [`${OPENING}w1`, 'w2 w3', '(end of answer: 3 words)'], true],
    ['a character lost at a split', [`${OPENING}w1 w`, ' w3 (end of answer: 3 words)'], false],
    ['a part lost in the middle', [`${OPENING}w1`, '(end of answer: 3 words)'], false],
    ['parts out of order', [`${OPENING}w2`, 'w1 w3 (end of answer: 3 words)'], false],
    ['a part posted twice', [`${OPENING}w1 w2`, 'w2 w3 (end of answer: 3 words)'], false],
    ['cut before its end mark (a stream left open, an update that lost the tail)', [`${OPENING}w1 w2`], false],
    ['the short answer cut mid-sentence', ['Hi <@U0PERSON>, I got that. Answered by'], false],
  ])('%s: whole = %s', (_, texts, whole) => {
    expect(isWholeAnswer(texts)).toBe(whole);
  });

  it("counts a long answer's later parts as the same reply, and its first part as a reply", () => {
    expect(isContinuation('w41 w42 w43')).toBe(true);
    expect(isContinuation(`${OPENING}w1 w2`)).toBe(false);
    expect(isContinuation('Hi <@U0PERSON>, I got that.')).toBe(false);
  });

  it('a last part holding only the end mark is a continuation too (the drill counted it as a second reply at 1,000 mentions)', () => {
    expect(isContinuation(' (end of answer: 1712 words)')).toBe(true);
  });

  it("reads the turn's metadata first: a part after the first and a note are not replies, the first part is", () => {
    const meta = (payload: Record<string, unknown>) => JSON.stringify({ event_type: 'autohub_turn', event_payload: { event_id: 'Ev-1', ...payload } });
    expect(isContinuation('anything', meta({ part: 1, final: true }))).toBe(true);
    expect(isContinuation('_(Sorry, I could not answer this.)_', meta({ part: -1, final: false, note: true }))).toBe(true);
    expect(isContinuation('w1 w2', meta({ part: 0, final: false }))).toBe(false);
  });
});
