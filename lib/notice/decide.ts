/**
 * When the owner is told of a fault only the owner can fix: once per cause
 * per hour. The first occurrence is told at once; while it goes on, one
 * notice an hour, carrying how many times it happened since the last one.
 * Pure: plain state and `now` in, the decision and the next state out.
 */

/** The faults the owner hears of: those only the owner can fix (a token, a plan, a setting, Slack's side of the app), or would not see otherwise. */
export const NOTICE_CAUSES = [
  'app_rate_limited',
  'claims_fail_open',
  'web_api_auth',
  'store_allowance',
  'slack_not_delivering',
  'turns_waiting_on_store',
  'edge_inbox',
] as const;
export type NoticeCause = (typeof NOTICE_CAUSES)[number];

/** @default one hour */
export const NOTICE_EVERY_MS = 60 * 60 * 1000;

export interface NoticeState {
  /** When the owner was last told of this cause; undefined until the first time. */
  toldAt: number | undefined;
  /** Occurrences since that notice (not yet told). */
  count: number;
}

/** `first`: no notice of this cause before (here); `count`: occurrences the notice covers. */
export type NoticeStep = { tell: true; first: boolean; count: number; next: NoticeState } | { tell: false; next: NoticeState };

/** One more occurrence of a cause whose state is `state` (undefined: never seen). */
export function noticeStep(state: NoticeState | undefined, now: number, everyMs: number = NOTICE_EVERY_MS): NoticeStep {
  const count = (state?.count ?? 0) + 1;
  const toldAt = state?.toldAt;
  if (toldAt === undefined || now - toldAt >= everyMs) return { tell: true, first: toldAt === undefined, count, next: { toldAt: now, count: 0 } };
  return { tell: false, next: { toldAt, count } };
}

/** Web API errors that mean the bot token no longer works: only the owner can mend them. */
const AUTH_ERRORS = new Set(['invalid_auth', 'token_revoked', 'account_inactive']);

export function isAuthFailure(error: string | undefined): boolean {
  return error !== undefined && AUTH_ERRORS.has(error);
}

/** Warn at this share of the store plan's monthly commands. */
export const ALLOWANCE_WARN_SHARE = 0.8;

/** Whether the month's Upstash commands call for a word to the owner: at 80% of the plan's allowance (0: none set). Pure. */
export function allowanceReached(used: number, allowance: number, share: number = ALLOWANCE_WARN_SHARE): boolean {
  return allowance > 0 && used >= allowance * share;
}

/**
 * A catch-up sweep answered mentions from a time this copy was serving
 * (started before the window began, so it could have taken them): nothing
 * reached it, so Slack did not deliver them (event subscriptions disabled,
 * the Request URL changed) or the edge did not pass them on. Pure.
 */
export function missedWhileServing(sweep: { from: string; answered: number }, servingSinceMs: number): boolean {
  const from = Date.parse(sweep.from);
  return sweep.answered > 0 && Number.isFinite(from) && from >= servingSinceMs;
}
