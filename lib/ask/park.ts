/** A turn parked on a question: the question posted in the turn's thread and its place kept in the store (lib/ask/question.ts). */
import type { WebClient } from '@slack/web-api';
import type { Lists, Records } from '../store/index.js';
import { noteMetadata } from '../turn/parts.js';
import type { TurnRequest } from '../turn/types.js';
import {
  ASK_DEADLINES_KEY,
  askKey,
  checkQuestion,
  DEFAULT_ASK_TIMEOUT_MS,
  MAX_PARKED,
  questionBlocks,
  questionId,
  type AskQuestion,
  type QuestionRecord,
  type ResumeState,
} from './question.js';

/** A question's record outlives its deadline by a day: a late click is still told "already answered". */
const RECORD_MARGIN_S = 24 * 3600;

export async function parkTurn(o: {
  question: AskQuestion;
  index: number;
  request: TurnRequest;
  target: { channel: string; threadTs: string; eventId: string };
  /** The envelope of the run that asks (the turn's first, or a resumed one). */
  envelope: Record<string, unknown>;
  /** The turn's state before this run; this run's claim key is added to it. */
  resume: ResumeState;
  key: string;
  /** The turn's fenced client: a copy that lost the turn posts no question. */
  client: WebClient;
  records: Pick<Records, 'note'> & Pick<Lists, 'push' | 'range'>;
  now: number;
  /** ctx.sleep: park until the deadline (`question.timeoutMs`), with no question posted. */
  sleeping?: boolean;
}): Promise<{ qid: string; deadline: number }> {
  // A sleep (`sleeping`) is a wait with no question: nothing posted, nobody to answer, only its deadline.
  const problem = o.sleeping ? undefined : checkQuestion(o.question);
  if (problem) throw new TypeError(problem);
  const { question, target, request } = o;
  const qid = questionId(request.eventId, o.index);
  const from = question.from && question.from.length > 0 ? [...question.from] : request.user ? [request.user] : [];
  if (from.length === 0 && !o.sleeping) throw new TypeError('ctx.ask needs `from` here: this turn answers nobody in particular (a schedule)');
  const deadline = o.now + (question.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS);
  // The bound on parked turns: questions whose deadline has not passed (answered or not), across the copies.
  const waiting = (await o.records.range(ASK_DEADLINES_KEY, MAX_PARKED)).filter((entry) => Number(entry.split('|')[0]) > o.now).length;
  if (waiting >= MAX_PARKED) throw new TooManyQuestionsError(waiting);
  const record: QuestionRecord = {
    qid,
    eventId: request.eventId,
    channel: target.channel,
    ts: '',
    text: question.text,
    choices: [...question.choices],
    from,
    deadline,
    envelope: o.envelope,
    resume: { ...o.resume, keys: [...o.resume.keys, o.key] },
  };
  const ttl = Math.ceil((deadline - o.now) / 1000) + RECORD_MARGIN_S;
  // Kept before the question is posted: a click on it finds its place even when the asker dies right after the
  // post (it would be told "answered already", and the turn, taken over, would wait on a question nobody clicks again).
  if (!o.sleeping) await o.records.note(askKey(qid), JSON.stringify(record), ttl);
  const posted = o.sleeping
    ? { channel: target.channel, ts: '' }
    : await o.client.chat.postMessage({
        channel: target.channel,
        ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
        text: question.text,
        blocks: questionBlocks(qid, question.text, question.choices) as never,
        // A note of the turn: never taken for its reply by a taker-over's thread check.
        metadata: noteMetadata(target.eventId),
      });
  // Again with the question's message, whose buttons the answer replaces.
  const placed: QuestionRecord = { ...record, channel: posted.channel ?? target.channel, ts: posted.ts ?? '' };
  await o.records.note(askKey(qid), JSON.stringify(placed), ttl);
  await o.records.push(ASK_DEADLINES_KEY, [`${deadline}|${qid}`], MAX_PARKED);
  return { qid, deadline };
}

/** ctx.ask past the bound on parked turns: the turn ends as a dead letter (its owner told), nothing posted. */
export class TooManyQuestionsError extends Error {
  constructor(readonly waiting: number) {
    super(`ctx.ask: ${waiting} questions are waiting already, the most autohub keeps (${MAX_PARKED}); answer or let some time out first`);
    this.name = 'TooManyQuestionsError';
  }
}
