export { LegChecker } from './leg-checker.js';
export type { LegCheckerOptions } from './leg-checker.js';
export { judgeLeg, probeLeg } from './leg-probe.js';
export type { LegAnswer, ProbeLegOptions } from './leg-probe.js';
export { ALERT_AFTER, nextLeg, nextLegs, noticeText, parseLegsRecord } from './leg-record.js';
export type { LegCheck, LegNotice, LegState, LegsRecord } from './leg-record.js';
