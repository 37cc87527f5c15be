/** ctx.ask's question checked before anything is posted: clear errors for what Slack or the bound would refuse; the bound on parked turns. */
import { describe, expect, it } from 'vitest';
import { askKey, checkQuestion, MAX_PARKED, parkTurn, questionId, resumeEnvelope, TooManyQuestionsError, type ResumeState } from '../../lib/ask/index.js';
import type { TurnRequest } from '../../lib/bot/index.js';

describe('a question checked', () => {
  it.each([
    ['no text', { text: ' ', choices: ['Yes'] }, /needs a text/],
    ['an empty choice list', { text: 'Deploy?', choices: [] }, /needs choices: at least one/],
    ['more choices than an actions block holds', { text: 'Pick', choices: Array.from({ length: 26 }, (_, i) => `c${i}`) }, /at most 25 choices/],
    ['a choice longer than a button', { text: 'Pick', choices: ['x'.repeat(76)] }, /at most 75 characters/],
    ['a choice twice', { text: 'Pick', choices: ['Yes', 'Yes'] }, /must differ/],
    ['a wait past the bound', { text: 'Pick', choices: ['Yes'], timeoutMs: 24 * 3_600_000 }, /23 hours/],
  ])('refuses %s', (_what, question, message) => {
    expect(checkQuestion(question)).toMatch(message);
  });

  it('takes a good one, and names each ask of a turn the same on every run', () => {
    expect(checkQuestion({ text: 'Deploy?', choices: ['Deploy', 'Cancel'], timeoutMs: 60_000 })).toBeUndefined();
    expect(questionId('Ev1', 0)).toBe(questionId('Ev1', 0));
    expect(questionId('Ev1', 1)).not.toBe(questionId('Ev1', 0));
  });

  it("resumes under the question's own event id, as a non-message event, its answer added", () => {
    const resume: ResumeState = { eventId: 'Ev1', answers: [], keys: ['k1'], type: 'app_mention' };
    const envelope = resumeEnvelope(
      { qid: 'q1', envelope: { event_id: 'Ev1', event: { type: 'app_mention', channel: 'C1', ts: '1.1' } }, resume },
      { choice: 'Yes', user: 'U1' },
    );
    expect(envelope).toMatchObject({ event_id: 'Ev-ask-q1', event: { type: 'autohub_resume', channel: 'C1', ts: '1.1' } });
    expect(envelope.autohub_resume).toEqual({ ...resume, answers: [{ choice: 'Yes', user: 'U1' }] });
  });
});

describe('the bound on parked turns', () => {
  const request = { user: 'U1', eventId: 'Ev1' } as TurnRequest;
  const park = (waiting: string[]) => {
    const posted: unknown[] = [];
    const run = parkTurn({
      question: { text: 'Deploy?', choices: ['Deploy'] },
      index: 0,
      request,
      target: { channel: 'C1', threadTs: '1.1', eventId: 'Ev1' },
      envelope: {},
      resume: { eventId: 'Ev1', answers: [], keys: [], type: 'app_mention' },
      key: 'k1',
      client: {
        chat: {
          postMessage: async (p: unknown) => {
            posted.push(p);
            return { ok: true, ts: '2.2', channel: 'C1' };
          },
        },
      } as never,
      records: { note: async () => {}, push: async () => {}, range: async () => waiting },
      now: 1_000_000,
    });
    return { run, posted };
  };

  it(`refuses a question past ${MAX_PARKED} waiting (their deadlines to come), before posting it`, async () => {
    const full = park(Array.from({ length: MAX_PARKED }, (_, i) => `${2_000_000 + i}|q${i}`));
    await expect(full.run).rejects.toBeInstanceOf(TooManyQuestionsError);
    expect(full.posted).toEqual([]);
  });

  it('counts only questions whose deadline is still to come', async () => {
    const past = park(Array.from({ length: MAX_PARKED }, (_, i) => `${500_000 + i}|q${i}`));
    await expect(past.run).resolves.toMatchObject({ qid: questionId('Ev1', 0) });
    expect(past.posted).toHaveLength(1);
  });
});

describe("a question's place", () => {
  it('is kept before the question is posted: a click right after the post finds it though the asker dies there', async () => {
    const kept = new Map<string, string>();
    const request = { user: 'U1', eventId: 'Ev2' } as TurnRequest;
    let keptWhenPosted: string | undefined;
    const died = new Error('the asker died right after the post');
    const run = parkTurn({
      question: { text: 'Deploy?', choices: ['Deploy'] },
      index: 0,
      request,
      target: { channel: 'C1', threadTs: '1.1', eventId: 'Ev2' },
      envelope: {},
      resume: { eventId: 'Ev2', answers: [], keys: [], type: 'app_mention' },
      key: 'k2',
      client: {
        chat: {
          postMessage: async () => {
            keptWhenPosted = kept.get(askKey(questionId('Ev2', 0)));
            return { ok: true, ts: '2.2', channel: 'C1' };
          },
        },
      } as never,
      records: {
        note: async (key: string, value: string) => {
          // The first write lands; the asker dies before the second (the question's message in it).
          if (kept.has(key)) throw died;
          kept.set(key, value);
        },
        push: async () => {},
        range: async () => [],
      },
      now: 1_000_000,
    });
    await expect(run).rejects.toBe(died);
    expect(keptWhenPosted).toBeDefined();
    // A click's answer resumes from it: its from, its choices, the asking run's step book.
    expect(JSON.parse(kept.get(askKey(questionId('Ev2', 0)))!)).toMatchObject({ from: ['U1'], choices: ['Deploy'], resume: { keys: ['k2'] } });
  });
});
