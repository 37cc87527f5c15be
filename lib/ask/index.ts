export {
  answeredBlocks,
  ASK_ACTION_PREFIX,
  ASK_DEADLINES_KEY,
  askKey,
  checkQuestion,
  DEFAULT_ASK_TIMEOUT_MS,
  MAX_ASK_TIMEOUT_MS,
  MAX_CHOICES,
  MAX_PARKED,
  parseAction,
  questionBlocks,
  questionId,
  RESUME_EVENT_TYPE,
  resumeEnvelope,
  resumeEventId,
  resumeOf,
  TurnParkedError,
} from './question.js';
export type { AskAnswer, AskQuestion, QuestionRecord, ResumeState } from './question.js';
export { parkTurn, TooManyQuestionsError } from './park.js';
export { answerQuestion, readQuestion, resolveQuestion } from './answer.js';
export type { AnswerOutcome } from './answer.js';
export { QuestionWatch } from './watch.js';
export type { QuestionWatchOptions } from './watch.js';
