/**
 * How fast the sweep may read history, learnt from Slack's answers. Pure.
 *
 * Slack's rate-limit page (https://docs.slack.dev/apis/web-api/rate-limits, "App types and rate limits",
 * read 2026-12-06) gives `conversations.history` and `conversations.replies` two regimes:
 *
 *   - Tier 3 (50+ a minute) for internal customer-built apps (an app made for its own workspace, as
 *     autohub's owner makes it) and for apps approved for the Slack Marketplace;
 *   - 1 request a minute, and at most 15 objects a page (`limit`), for commercially distributed apps not
 *     in the Marketplace created since 2025-05-29 (existing installations of them are not subject).
 *
 * Slack gives no flag saying which an app is, so the sweep reads it from Slack's answers: a refusal of
 * either method with a Retry-After of LIMITED_RETRY_AFTER_S or more (at its Tier 3 pace of one call per
 * 1.2 s a Tier 3 window reopens within seconds; only a method allowed once a minute makes Slack name most
 * of a minute), or a page of exactly 15 messages with more to come when more were asked for.
 */

/** The two methods Slack limits for non-Marketplace apps. */
export const HISTORY_METHODS: ReadonlySet<string> = new Set(['conversations.history', 'conversations.replies']);

/** A Retry-After at least this long, on a history method, is the once-a-minute regime. */
export const LIMITED_RETRY_AFTER_S = 20;

/** What the non-Marketplace regime allows: one call a minute, 15 objects a page. */
export const LIMITED = { callsPerMinute: 1, objects: 15 } as const;

/**
 * The pace the sweep keeps under it: one history call every 2 minutes, half of Slack's one a minute, so
 * that every other minute is left to live turns (ctx.history(), a takeover's thread check), which share
 * the method's window (2 x 60 s = 120 s between the sweep's calls).
 */
export const LIMITED_PACE_MS = 2 * 60_000;

export type HistoryRegime = 'tier3' | 'limited';

/** Why the sweep took the limited pace, for its log line. */
export type LimitedBy = 'retry_after' | 'page_of_15';

/** Whether a rate-limit refusal of `method` with `retryAfterS` (as Slack's header gave it) shows the limited regime. */
export function limitedByRefusal(method: string, retryAfterS: number | undefined): boolean {
  return HISTORY_METHODS.has(method) && retryAfterS !== undefined && retryAfterS >= LIMITED_RETRY_AFTER_S;
}

/** Whether a page of `method`, asked with `asked` as its limit, shows the 15-object cap. */
export function limitedByPage(method: string, asked: number, page: { messages?: readonly unknown[] | undefined; has_more?: boolean | undefined }): boolean {
  return HISTORY_METHODS.has(method) && asked > LIMITED.objects && page.has_more === true && page.messages?.length === LIMITED.objects;
}
