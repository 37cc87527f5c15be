/**
 * `ctx.ask`: a question a turn waits on, parked durably. Pure, but for the
 * question id's hash.
 *
 * The turn posts the question (one button per choice) and ends, parked: its
 * lease is finished, it holds no slot and sends no renewals. Its place is a
 * record in the store (`askKey`): the question's message, who may answer,
 * the deadline, and the envelope to run again. The answer (a click, on any
 * copy, or the deadline) injects that envelope under an event id made from
 * the question's (`Ev-ask-<qid>`), so it is claimed once whoever answers
 * first; the run starts `takeTurn` again from the top with the original
 * request, its earlier steps read back from the step books of the runs
 * before it (`keys`), and each `ctx.ask` already answered returns its answer.
 */
import { createHash } from 'node:crypto';

/** A button's action id: `autohub_ask:<qid>:<choice index>` (autohub's own: a bot's listeners never see them). */
export const ASK_ACTION_PREFIX = 'autohub_ask';
/** The event type of a resumed turn's envelope (not a message, so not claimed under the message's key again). */
export const RESUME_EVENT_TYPE = 'autohub_resume';
/** A wait without `timeoutMs`. */
export const DEFAULT_ASK_TIMEOUT_MS = 60 * 60_000;
/** The longest wait: the turn's kept steps live a claim's life (24 h), so a resumed run still finds them. */
export const MAX_ASK_TIMEOUT_MS = 23 * 60 * 60_000;
/** Slack's actions block holds at most 25 elements. */
export const MAX_CHOICES = 25;
/** Slack's button text is at most 75 characters. */
export const MAX_CHOICE_CHARS = 75;

export interface AskQuestion {
  text: string;
  choices: readonly string[];
  /** Who may answer (user ids). @default the person the bot is answering */
  from?: readonly string[];
  /** @default 3600000 (an hour); at most 23 hours */
  timeoutMs?: number;
}

export type AskAnswer = { choice: string; user: string; timedOut?: false } | { timedOut: true; choice?: undefined; user?: undefined };

/** What a resumed run's envelope carries: the turn's own event id, the answers so far (in ask order), and the claim keys of the runs before it. */
export interface ResumeState {
  eventId: string;
  answers: AskAnswer[];
  keys: string[];
  /** The event type the turn began with (`app_mention`, `message`). */
  type: string;
}

/** The question's record in the store. */
export interface QuestionRecord {
  qid: string;
  eventId: string;
  channel: string;
  /** The question's message. */
  ts: string;
  text: string;
  choices: string[];
  from: string[];
  /** Epoch ms. */
  deadline: number;
  /** The envelope the answer resumes (the turn's current run's, with its state so far). */
  envelope: Record<string, unknown>;
  /** The state the answer's run adds its answer to. */
  resume: ResumeState;
}

export const askKey = (qid: string): string => `autohub:ask:${qid}`;
/** The deadlines the copies watch: `<deadline ms>|<qid>`, newest first, capped (MAX_PARKED). */
export const ASK_DEADLINES_KEY = 'autohub:ask:deadlines';
/** The most questions waiting at once whose deadlines are watched: older ones past it still take a click, but time out only on a click. */
export const MAX_PARKED = 200;

/** The question's id: the same on every run of the turn, for the same ask. */
export function questionId(eventId: string, index: number): string {
  return createHash('sha256').update(`${eventId}\u0000${index}`).digest('hex').slice(0, 20);
}

export const resumeEventId = (qid: string): string => `Ev-ask-${qid}`;

/** A question checked: a clear error for an empty choice list, a choice too long, or a wait past the bound. */
export function checkQuestion(q: AskQuestion): string | undefined {
  if (typeof q?.text !== 'string' || q.text.trim() === '') return 'ctx.ask needs a text: the question';
  if (!Array.isArray(q.choices) || q.choices.length === 0) return 'ctx.ask needs choices: at least one';
  if (q.choices.length > MAX_CHOICES) return `ctx.ask takes at most ${MAX_CHOICES} choices (Slack's actions block)`;
  for (const c of q.choices) {
    if (typeof c !== 'string' || c.trim() === '' || c.length > MAX_CHOICE_CHARS)
      return `ctx.ask's choices must be non-empty strings of at most ${MAX_CHOICE_CHARS} characters`;
  }
  if (new Set(q.choices).size !== q.choices.length) return "ctx.ask's choices must differ";
  if (q.timeoutMs !== undefined && !(Number.isInteger(q.timeoutMs) && q.timeoutMs >= 1000 && q.timeoutMs <= MAX_ASK_TIMEOUT_MS)) {
    return `ctx.ask's timeoutMs must be whole ms from 1000 to ${MAX_ASK_TIMEOUT_MS} (23 hours)`;
  }
  return undefined;
}

export function questionBlocks(qid: string, text: string, choices: readonly string[]): Record<string, unknown>[] {
  return [
    { type: 'section', text: { type: 'mrkdwn', text } },
    {
      type: 'actions',
      block_id: `${ASK_ACTION_PREFIX}:${qid}`,
      elements: choices.map((choice, i) => ({
        type: 'button',
        action_id: `${ASK_ACTION_PREFIX}:${qid}:${i}`,
        text: { type: 'plain_text', text: choice },
        value: `${qid}:${i}`,
      })),
    },
  ];
}

/** The question once answered: its buttons replaced by what was chosen, or by the timeout. */
export function answeredBlocks(text: string, answer: AskAnswer): Record<string, unknown>[] {
  const line = answer.timedOut ? '_No answer in time._' : `*${answer.choice}*: chosen by <@${answer.user}>`;
  return [
    { type: 'section', text: { type: 'mrkdwn', text } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: line }] },
  ];
}

/** A button's qid and choice index, or undefined when it is not one of ours. */
export function parseAction(actionId: unknown): { qid: string; index: number } | undefined {
  if (typeof actionId !== 'string') return undefined;
  const m = /^autohub_ask:([0-9a-f]{20}):(\d{1,2})$/.exec(actionId);
  return m ? { qid: m[1]!, index: Number(m[2]) } : undefined;
}

/** The resume state an envelope carries, or undefined on a turn's first run. */
export function resumeOf(body: { autohub_resume?: unknown }): ResumeState | undefined {
  const r = body.autohub_resume as Partial<ResumeState> | undefined;
  if (!r || typeof r.eventId !== 'string' || !Array.isArray(r.answers) || !Array.isArray(r.keys) || typeof r.type !== 'string') return undefined;
  return { eventId: r.eventId, answers: r.answers, keys: r.keys, type: r.type };
}

/** The envelope the answer runs: the question's, under the answer's event id, its state with the answer added. */
export function resumeEnvelope(record: Pick<QuestionRecord, 'qid' | 'envelope' | 'resume'>, answer: AskAnswer): Record<string, unknown> {
  const event = record.envelope.event as Record<string, unknown>;
  return {
    ...record.envelope,
    event_id: resumeEventId(record.qid),
    autohub_resume: { ...record.resume, answers: [...record.resume.answers, answer] } satisfies ResumeState,
    event: { ...event, type: RESUME_EVENT_TYPE },
  };
}

/** Thrown by ctx.ask once the question is posted and kept: the run ends here, parked (its lease finished when the listener returns). */
export class TurnParkedError extends Error {
  constructor(readonly qid: string) {
    super(`parked on question ${qid}`);
    this.name = 'TurnParkedError';
  }
}
