/** What the owner is told of each cause, by DM and on the status page. Pure. */
import type { NoticeCause } from './decide.js';

/** A short name for the status page. */
export const NOTICE_TITLES: Record<NoticeCause, string> = {
  app_rate_limited: 'Slack is dropping events (app_rate_limited)',
  claims_fail_open: 'Claims failing open',
  web_api_auth: 'Web API refuses the bot token',
  store_allowance: "The store's monthly allowance is nearly spent",
  slack_not_delivering: 'Slack did not deliver mentions while the copies were serving',
  turns_waiting_on_store: 'Turns are waiting for the store',
  edge_inbox: 'The edge kept deliveries while no copy answered',
};

/** What to do about it. */
const REMEDIES: Record<NoticeCause, string> = {
  app_rate_limited:
    'Slack drops events past 30,000 an hour from one workspace and does not send them again; they are not retried. Find what floods the app with events (a busy channel, a loop between bots).',
  claims_fail_open:
    'The shared store is not answering (plan quota used up, token rotated, or unreachable): turns still run, but one that reaches both copies may be answered twice, and none of them can be taken over. Check the Upstash database and `UPSTASH_REDIS_REST_TOKEN`.',
  web_api_auth: 'Every reply fails until `SLACK_BOT_TOKEN` is a valid bot token again (reinstall the app, or put the new token on both copies).',
  store_allowance:
    'Past the allowance Upstash refuses every command until the month turns, and every claim fails open (duplicates possible, no takeovers). Raise the plan, or set AUTOHUB_UPSTASH_MONTHLY_COMMANDS to what it allows.',
  slack_not_delivering:
    "The catch-up sweep answered them late. Check the app's Event Subscriptions page (Slack disables them when fewer than 5% of deliveries get a 200 in an hour) and that its Request URL is the edge's.",
  turns_waiting_on_store:
    'Turns whose reply failed could not be handed to the shared store for their retry (plan quota used up, database full, token rotated, or unreachable). This copy keeps them (AUTOHUB_JOURNAL) and runs them again as soon as the store answers; nothing more to do unless the store stays broken. Check the Upstash database.',
  edge_inbox:
    'Both copies were down (or unreachable from the edge) and the edge kept what Slack sent in the shared store; the copies answer it late, once each. Nothing to do, unless the copies are down often.',
};

/** The DM: what, where, how often since the notice before (`first`: there was none), and what to do. */
export function noticeText(cause: NoticeCause, count: number, detail: string, first: boolean): string {
  const times =
    cause === 'claims_fail_open' ? `${count} turn(s) failed open` : cause === 'turns_waiting_on_store' ? `${count} turn(s) kept` : `${count} time(s)`;
  const since = first ? 'so far' : 'since the last notice, an hour or more ago';
  return [`:warning: *${NOTICE_TITLES[cause]}*: ${detail} (${times} ${since}).`, REMEDIES[cause]].join('\n');
}

/** The detail of an `app_rate_limited` envelope: which workspace, since which minute (UTC). */
export function appRateLimitedDetail(n: { teamId: string | undefined; minuteRateLimited: number | undefined }): string {
  const since = n.minuteRateLimited === undefined ? '' : `, since ${new Date(n.minuteRateLimited * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `workspace ${n.teamId ?? 'unknown'}${since}`;
}
