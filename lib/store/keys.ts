/**
 * Every key autohub writes, in one place, namespaced so the database can be
 * shared with other data. `team` is the Slack team (workspace) id, or `-`
 * when a payload has none.
 */
const PREFIX = 'autohub';

function part(value: string | undefined): string {
  return value && value.length > 0 ? value.replace(/[:\s]/g, '_') : '-';
}

/** An Events API delivery, by its `event_id` (stable across Slack's retries). The lease lives here. */
export function eventKey(team: string | undefined, eventId: string): string {
  return `${PREFIX}:claim:${part(team)}:event:${part(eventId)}`;
}

/**
 * A message, whatever `event_id` it arrives under: Slack has been seen to
 * deliver one message twice with two event ids and no retry headers. Per
 * event type, so a plain `message` event arriving first cannot swallow the
 * `app_mention` of the same message.
 */
export function messageKey(team: string | undefined, eventType: string, channel: string, ts: string): string {
  return `${PREFIX}:claim:${part(team)}:message:${part(eventType)}:${part(channel)}:${part(ts)}`;
}

/** A slash command or interactivity payload, by its `trigger_id`. */
export function triggerKey(team: string | undefined, triggerId: string): string {
  return `${PREFIX}:claim:${part(team)}:trigger:${part(triggerId)}`;
}

/** The sorted set of live leases, scored by when each lapses (Redis time, ms). */
export const LEASES_KEY = `${PREFIX}:leases`;
/**
 * A member of the lease set that is never due, written only once the set is
 * known whole (by a rebuild from the records). Its absence says the set was
 * lost (deleted, evicted, flushed): claims and renewals re-create the set
 * without it, so a dead owner's lease left out of it is still noticed.
 */
export const LEASES_INDEXED = '~indexed';
/** Its score: past any lease's (about the year 287,000), finite so every script reads it as a number. */
export const LEASES_INDEXED_SCORE = 9e15;
/** What a rebuild of the lease set scans for: the event keys, the only ones that hold a lease. */
export const EVENT_KEYS_MATCH = `${PREFIX}:claim:*:event:*`;
/** The sorted set of dead-lettered turns, scored by when they died. */
export const DEAD_KEY = `${PREFIX}:dead`;
/** When a copy last claimed a delivery (Redis time, ms): the catch-up sweep's watermark. */
export const SERVED_KEY = `${PREFIX}:served`;
/**
 * Gaps in serving longer than Slack's retry window ("start:end", Redis ms),
 * recorded by the claim that ends one: the mentions sent in a gap may have
 * been dropped by Slack, so the catch-up sweep reads them back.
 */
export const GAPS_KEY = `${PREFIX}:gaps`;
/** The catch-up sweep's lock, so only one copy sweeps at a time. */
export const SWEEP_LOCK_KEY = `${PREFIX}:sweep:lock`;
/** An owner notice's mark (lib/notice), held an hour, so of two copies only one tells the owner. */
export function noticeLockKey(cause: string): string {
  return `${PREFIX}:notice:${part(cause)}`;
}
/** The status page's line for an owner notice: the last time it was told, how many times it happened, why. */
export function noticeStatusKey(cause: string): string {
  return `${PREFIX}:status:notice:${part(cause)}`;
}
/** The leg checks' lock, so only one copy proves the legs each period (lib/legs). */
export const LEGS_LOCK_KEY = `${PREFIX}:legs:lock`;
/** A hash of rate-limit windows shared by the copies: field -> epoch ms the window reopens. */
export const WINDOWS_KEY = `${PREFIX}:ratelimit`;

/** What the status page is made of. */
export const STATUS_KEYS = {
  turns: `${PREFIX}:status:turns`,
  failovers: `${PREFIX}:status:failovers`,
  refusals: `${PREFIX}:status:refusals`,
  cloudLastServed: `${PREFIX}:status:cloud_last_served`,
  /** The last failover the edge reported to a copy, with its reason ("hub refusing (401)"). */
  lastFailover: `${PREFIX}:status:last_failover`,
  /** The last catch-up sweep: when, the window it covered, what it found and answered. */
  sweep: `${PREFIX}:status:sweep`,
  /** When each leg (edge -> hub, edge -> cloud) was last proven, and its failed checks in a row (lib/legs). */
  legs: `${PREFIX}:status:legs`,
  /** A hash: instance -> its last heartbeat record, so replicas never overwrite each other. */
  copies: `${PREFIX}:status:copies`,
} as const;

/**
 * A turn's kept steps (`ctx.step`): a hash of step name -> sealed JSON
 * result, beside the turn's claim key and kept as long as it.
 */
export function stepsKey(turnKey: string): string {
  const claim = `${PREFIX}:claim:`;
  return `${PREFIX}:steps:${turnKey.startsWith(claim) ? turnKey.slice(claim.length) : turnKey}`;
}

/** Upstash commands the copies sent in a UTC month (`YYYY-MM`), added up by the looks: the plan's allowance is per month. */
export function usageKey(at: Date): string {
  return `${PREFIX}:usage:${at.toISOString().slice(0, 7)}`;
}

/**
 * One conversation's turns in order (a sorted set of turn keys), the ones
 * skipped past its bound, the ones that went and the running ones a newer
 * message interrupted (sets): `conversation` from lib/conversation's
 * conversationOf (team, channel, thread).
 */
export function conversationKeys(conversation: string): { order: string; skipped: string; admitted: string; interrupted: string } {
  return {
    order: `${PREFIX}:conv:${conversation}`,
    skipped: `${PREFIX}:conv:${conversation}:skipped`,
    admitted: `${PREFIX}:conv:${conversation}:admitted`,
    interrupted: `${PREFIX}:conv:${conversation}:interrupted`,
  };
}

/** An assistant thread (Slack's split view): its latest context, sealed, whichever copy saw the change. */
export function assistantThreadKey(channel: string, threadTs: string): string {
  return `${PREFIX}:assistant:${part(channel)}:${part(threadTs)}`;
}

/** Where `noteNewest` keeps the order of the value at `key` (its event's time), beside it and as long. */
export function newestOrderKey(key: string): string {
  return `${key}:order`;
}

/**
 * A feedback click heard, by its `trigger_id`: taken by the copy that runs the
 * bot's `onFeedback` for it, after the ack (a click the edge hands to both
 * copies, one of whose claims failed open, is still heard once).
 */
export function feedbackHeardKey(team: string | undefined, triggerId: string): string {
  return `${PREFIX}:feedback:${part(team)}:${part(triggerId)}`;
}

/** Taken once per assistant thread for `what` (its suggested prompts, its title; an agent view DM's greeting, `threadTs` 'dm'), by the event that does it. */
export function assistantOnceKey(what: 'prompts' | 'title' | 'greeting', channel: string, threadTs: string): string {
  return `${PREFIX}:assistant:${part(what)}:${part(channel)}:${part(threadTs)}`;
}

/**
 * The messages of other apps (listed in AUTOHUB_ALLOW_BOTS) in one thread within a window, by ts
 * (lib/turn/bots.ts): a thread where bots answer each other past a bound stops.
 */
export function botLoopKey(team: string | undefined, channel: string, threadTs: string): string {
  return `${PREFIX}:bots:${part(team)}:${part(channel)}:${part(threadTs)}`;
}

/**
 * What a person is looking at in Slack, in the Agent messaging experience (`app_context_changed`, and the
 * `context` of `app_home_opened`): kept by the person, since their DM with the app has no thread to key it by.
 */
export function agentContextKey(user: string): string {
  return `${PREFIX}:agent:${part(user)}`;
}

/** Taken once per opening of a DM with the app (`app_home_opened`, tab `messages`), by the event that sets its prompts. */
export function agentOpenedKey(channel: string, eventTs: string): string {
  return `${PREFIX}:agent:opened:${part(channel)}:${part(eventTs)}`;
}

/**
 * A channel thread the bot answered in lately (a module's `followUps`, lib/turn/follow-ups.ts): a reply
 * with no @mention in it is answered while this lives.
 */
export function followUpKey(team: string | undefined, channel: string, threadTs: string): string {
  return `${PREFIX}:followup:${part(team)}:${part(channel)}:${part(threadTs)}`;
}
