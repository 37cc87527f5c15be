/**
 * An answer to a parked turn's question: a click (who may answer is checked) or its deadline. The turn is
 * resumed by injecting its envelope under the question's own event id, so whoever answers first resumes it,
 * once; then the question's buttons are replaced by the answer.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import type { Records } from '../store/index.js';
import { answeredBlocks, askKey, resumeEnvelope, type AskAnswer, type QuestionRecord } from './question.js';

export type AnswerOutcome = 'resumed' | 'answered_already' | 'not_yours' | 'gone' | 'unsure';

export async function readQuestion(store: Pick<Records, 'read'>, qid: string): Promise<QuestionRecord | null | undefined> {
  const raw = await store.read(askKey(qid));
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as QuestionRecord;
  } catch {
    return null;
  }
}

export async function resolveQuestion(o: {
  record: QuestionRecord;
  answer: AskAnswer;
  client: WebClient;
  inject: (envelope: Record<string, unknown>) => Promise<string>;
  log: Logger;
  /** The clicked message, when the record was kept before its question was posted (its asker died right after). */
  message?: { channel: string; ts: string } | undefined;
}): Promise<AnswerOutcome> {
  const { answer, log } = o;
  const record = !o.record.ts && o.message?.ts ? { ...o.record, ...o.message } : o.record;
  const claim = await o.inject(resumeEnvelope(record, answer)).catch(() => 'fail-open');
  if (claim === 'duplicate') return 'answered_already';
  if (claim !== 'claimed') return 'unsure';
  log.info('ask.answered', { eventId: record.eventId, question: record.qid, ...(answer.timedOut ? { timedOut: true } : { user: answer.user }) });
  // A sleep posted no question: nothing to replace.
  if (!record.ts) return 'resumed';
  await o.client.chat
    .update({ channel: record.channel, ts: record.ts, text: record.text, blocks: answeredBlocks(record.text, answer) as never })
    .catch((error: unknown) => log.warn('ask.update_failed', { question: record.qid, error }));
  return 'resumed';
}

/** A click on choice `index` of question `qid` by `user`. */
export async function answerQuestion(o: {
  qid: string;
  index: number;
  user: string;
  store: Pick<Records, 'read'>;
  client: WebClient;
  inject: (envelope: Record<string, unknown>) => Promise<string>;
  log: Logger;
  /** The message clicked (its channel and ts). */
  message?: { channel: string; ts: string } | undefined;
}): Promise<AnswerOutcome> {
  const record = await readQuestion(o.store, o.qid);
  if (record === undefined) return 'unsure';
  if (record === null) return 'gone';
  if (!record.from.includes(o.user)) {
    o.log.info('ask.not_yours', { question: o.qid, user: o.user });
    return 'not_yours';
  }
  const choice = record.choices[o.index];
  if (choice === undefined) return 'gone';
  return resolveQuestion({ record, answer: { choice, user: o.user }, client: o.client, inject: o.inject, log: o.log, message: o.message });
}
