/** A drill scenario's result made by hand, with figures a test knows without running the drill. */
import type { FaultWindow, ScenarioResult } from '../../drill/run-scenario.js';
import type { ScenarioScore } from '../../drill/score.js';

export const CLEAN_SCORE: ScenarioScore = {
  sent: 10,
  answered: 10,
  lost: 0,
  duplicateReplies: 0,
  retries: 0,
  servedByHub: 10,
  servedByCloud: 0,
  takenOver: 0,
  ackP50Ms: 10,
  ackP99Ms: 20,
  deadlineMisses: 0,
  lostMentions: [],
  doubledMentions: [],
  deadLetters: 0,
  late: 0,
  maxWaitMs: 100,
  caughtUp: 0,
  halfWritten: 0,
};

export function scenarioResult(
  name: string,
  score: Partial<ScenarioScore> = {},
  faults: FaultWindow[] = [],
  extra: Partial<ScenarioResult> = {},
): ScenarioResult {
  return {
    name,
    summary: `${name}, made by hand`,
    startedAt: 1_000_000,
    endedAt: 1_010_000,
    score: { ...CLEAN_SCORE, ...score },
    attempts: [],
    replies: [],
    faults,
    ...extra,
  };
}
