/**
 * Every bound the store keeps, in one table: how long each thing lives and
 * how many of each are kept. The Redis scripts (scripts.ts) have these values
 * written in and the in-process store (memory-store.ts) reads the same ones
 * against its own clock, so the two cannot drift apart; tests read them too
 * instead of restating a number. Lifetimes are in seconds, as Redis takes them.
 */
const HOUR = 60 * 60;
const DAY = 24 * HOUR;

/**
 * Slack's last redelivery of an event, from its first attempt: its quick retries end after about 5
 * minutes, and an app with delayed redelivery gets a failed event again, hourly, for up to about a
 * day (Slack's Events API page, docs.slack.dev/apis/events-api; its schedule not read here: the day is
 * the upper bound Slack states). A delivery's keys must outlive it, or a redelivery late in that day
 * finds no claim and is answered twice.
 */
export const SLACK_LAST_REDELIVERY_SECONDS = DAY;
/** How far past Slack's last redelivery the keys that make a delivery single live: a day (Slack's clock and ours, a late hour). */
export const REDELIVERY_MARGIN_SECONDS = DAY;

export const STORE_LIMITS = Object.freeze({
  /**
   * A claim, its message aliases, a done turn's record (its reply's ts), a
   * dropped dead letter, a turn's kept steps, a command's or a click's claim
   * and a click's heard mark (what a kept delivery of the edge's inbox is
   * claimed under too): Slack's last redelivery and a day's margin, 48 h.
   */
  claimTtlSeconds: SLACK_LAST_REDELIVERY_SECONDS + REDELIVERY_MARGIN_SECONDS,
  /** A dead letter's record, and the dead set after the last one: a week. */
  deadTtlSeconds: 7 * DAY,
  /** The served mark (when a copy last claimed a delivery, the catch-up's watermark): a day past a claim's life, 72 h after that claim. */
  servedTtlSeconds: SLACK_LAST_REDELIVERY_SECONDS + REDELIVERY_MARGIN_SECONDS + DAY,
  /** Gaps in serving kept for the catch-up sweep: the newest 20; a 21st drops the oldest. */
  gapsKept: 20,
  /** The gaps list: 48 h after the last gap was recorded (the sweep reads back 24 h at most). */
  gapsTtlSeconds: 2 * DAY,
  /** The status page's turn lines (`STATUS_KEYS.turns`): the newest 10. */
  turnLines: 10,
  /** Turns served by the cloud copy (`STATUS_KEYS.failovers`): the newest 500, what the status page counts. */
  failoverLines: 500,
  /** Rate-limit refusals on the status page (`STATUS_KEYS.refusals`): the newest 200. */
  refusalLines: 200,
  /** Every capped list (turn lines, failovers, refusals): 48 h after its last push. */
  listTtlSeconds: 2 * DAY,
  /** When the cloud copy last served a turn (`STATUS_KEYS.cloudLastServed`): 30 days. */
  cloudServedTtlSeconds: 30 * DAY,
  /** The copies' heartbeats (`STATUS_KEYS.copies`): a week after the last look that wrote one. */
  heartbeatTtlSeconds: 7 * DAY,
  /** A month's command count (`usageKey`): 40 days, past the month's end. */
  usageTtlSeconds: 40 * DAY,
  /**
   * Turns of one conversation (a thread) that may wait behind the one
   * running: past it the oldest waiting one is answered with a short note
   * (lib/conversation).
   */
  conversationWaiting: 5,
  /** A conversation's order and its skipped set: an hour after the last turn took its place (a turn lasts at most its retry window, 10 minutes). */
  conversationTtlSeconds: HOUR,
  /** A lost lease set is rebuilt by SCAN (Upstash): this many keys a page. */
  reindexScanCount: 1000,
  /** ... and at most this many pages a look (10,000 keys, a day of about 5,000 mentions with their aliases); the rest at the next looks. */
  reindexPagesPerLook: 10,
  /** A turn's kept steps (ctx.step, one store command each): at most 100; the 101st is an error to the bot. */
  stepsPerTurn: 100,
  /**
   * An assistant thread's context and its once-marks (prompts set, title set): 30 days after the
   * last change, so a person coming back to a thread a few weeks later still gets what they were looking at.
   */
  assistantThreadTtlSeconds: 30 * DAY,
  /**
   * Messages of listed bots (AUTOHUB_ALLOW_BOTS) answered in one thread within the window from the
   * first (lib/turn/bots.ts): two agents take a few seconds a round, so 10 rounds in 5 minutes is a
   * conversation no person steers. The 11th gets one note, later ones nothing until the window lapses.
   */
  botLoopTurns: 10,
  botLoopWindowSeconds: 5 * 60,
});

export type StoreLimits = typeof STORE_LIMITS;

/** A claim's life, under the name its callers keep things "as long as a claim" by (ctx.step's results). */
export const CLAIM_TTL_SECONDS = STORE_LIMITS.claimTtlSeconds;
