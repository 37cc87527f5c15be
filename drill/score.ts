/** A scenario's figures, from what Slack saw and what was posted. Pure. */
import type { Attempt } from './slack-sim.js';

export interface Reply {
  /** The mention's ts (the reply's thread_ts). */
  mention: string;
  at: number;
  /** Which copy posted it: from the token it wrote with, else the demo turn's text. */
  by: 'hub' | 'cloud' | 'unknown';
  /** Posted by the catch-up sweep, after Slack gave up on the delivery. */
  caughtUp?: boolean;
  /** The start of what it said, for the report's sample. */
  text?: string;
}

export interface ScenarioScore {
  sent: number;
  answered: number;
  lost: number;
  duplicateReplies: number;
  retries: number;
  servedByHub: number;
  servedByCloud: number;
  /** Mentions the hub acked but the cloud copy answered: turns taken over from a dead owner. */
  takenOver: number;
  ackP50Ms: number;
  ackP99Ms: number;
  deadlineMisses: number;
  lostMentions: string[];
  doubledMentions: string[];
  /** Turns that ended as dead letters during the scenario (a lost mention that was at least recorded). */
  deadLetters?: number;
  /** Mentions answered and also dead-lettered: two ends for one mention (the owner told of a failure that was none). */
  answeredThenDead?: number;
  answeredThenDeadMentions?: string[];
  /** Mentions answered more than LATE_MS after Slack first sent them. */
  late: number;
  /** The longest a mention waited for its first reply, ms. */
  maxWaitMs: number;
  /** Mentions answered by the catch-up sweep after Slack gave up on them. */
  caughtUp: number;
  /** Streamed replies left open or cut off (set by the run, from what Slack holds). */
  halfWritten?: number;
  /** Answers the person stopped mid-stream (they count as answered, and are not half-written). */
  stoppedByUser?: number;
  /** Follow-ups whose answer began before the answer to the earlier message of their thread was whole (`conversation`). */
  outOfOrder?: number;
  /** Tasks left pending or in progress in a message that no longer streams, or in one still open at the end. */
  spinningTasks?: number;
  /** Side effects of the turns' steps (tickets filed), where the scenario has them. */
  sideEffects?: number;
  /** Mentions whose step's side effect ran more than once (a ticket filed twice). */
  sideEffectsTwice?: number;
  /**
   * Step requests the other side answered from their idempotency key, filing nothing (drill/sim/ticket-desk.ts):
   * a copy frozen between the step's check and its request, woken after a takeover (docs/steps.md). Not a failure.
   */
  stepRepeats?: number;
  /** The `ask` scenario (drill/ask-traffic.ts): questions asked, turns resumed by their person's click, by their timeout. */
  asked?: number;
  askChosen?: number;
  askTimedOut?: number;
  /** The `schedule` scenario (drill/schedule-check.ts): slots run, run twice, lost while a copy was up. */
  slots?: number;
  slotsTwice?: number;
  slotsLost?: number;
  /** Deliveries the edge kept in its inbox (answered 200, x-autohub-route: inbox), where the scenario gives it one. */
  keptByEdge?: number;
  /** Deliveries the edge could not keep (its store write timed out or failed, or the inbox was full): answered 503. */
  notKeptByEdge?: number;
  /** Slack's disable rule turned the app's events off (drill/slack-sim.ts). */
  eventsDisabled?: boolean;
  /** Slash commands and clicks beside the mentions (Scenario.forms), and how each command was answered. */
  commands?: number;
  commandsAnswered?: number;
  commandsTwice?: number;
  commandsLive?: number;
  commandsByResponseUrl?: number;
  commandsByDm?: number;
  clicks?: number;
  clicksHeard?: number;
  clicksTwice?: number;
}

/** When a turn's reply was written: its first write and its last, ms (from the Web API's calls). */
export interface WriteSpan {
  first: number;
  last: number;
}

/**
 * Follow-ups answered out of order: a follow-up (written after `earlier` in
 * the same thread) whose first write came before the earlier message's last
 * write. Both must have been answered to count. Pure.
 */
export function countOutOfOrder(pairs: ReadonlyArray<{ earlier: string; later: string }>, spans: ReadonlyMap<string, WriteSpan>): number {
  return pairs.filter(({ earlier, later }) => {
    const a = spans.get(earlier);
    const b = spans.get(later);
    return a !== undefined && b !== undefined && b.first < a.last;
  }).length;
}

/** Tasks still pending or in progress, over the streamed messages of a scenario. Pure. */
export function countSpinning(streams: Iterable<{ tasks: ReadonlyMap<string, { status: string }> }>): number {
  let n = 0;
  for (const st of streams) for (const t of st.tasks.values()) if (t.status === 'pending' || t.status === 'in_progress') n += 1;
  return n;
}

/** How many side effects ran, and for how many mentions more than once, from each effect's mention. Pure. */
export function countSideEffects(mentionOfEach: readonly string[]): { sideEffects: number; sideEffectsTwice: number } {
  const per = new Map<string, number>();
  for (const m of mentionOfEach) per.set(m, (per.get(m) ?? 0) + 1);
  return { sideEffects: mentionOfEach.length, sideEffectsTwice: [...per.values()].filter((n) => n > 1).length };
}

/**
 * The demo turn's long answer (AUTOHUB_DEMO_REPLY_CHARS): the usual opening,
 * then numbered words `w1 w2 ... wN`, then `(end of answer: N words)`. A
 * long answer may reach the thread as several messages; every part after the
 * first holds only words, so it starts no answer of its own.
 */
const END = /\(end of answer: (\d+) words\)/;

/**
 * A message that continues an answer begun in an earlier one (a long answer's
 * later part), or a note to the person: not a reply of its own. Read from the
 * turn's metadata (`part` > 0, `note`) when the message has it, else from the
 * text: a part after the first holds only words, or only the end mark. Pure.
 */
export function isContinuation(text: string, metadata?: string): boolean {
  if (metadata) {
    try {
      const payload = (JSON.parse(metadata) as { event_payload?: { part?: unknown; note?: unknown } }).event_payload;
      if (payload?.note === true) return true;
      if (typeof payload?.part === 'number') return payload.part > 0;
    } catch {
      /* no metadata of ours: judged by the text */
    }
  }
  return !text.includes('Hi <@') && (/\bw\d+\b/.test(text) || END.test(text));
}

/**
 * Whether a thread's messages, in ts order, end one whole answer of your bot's
 * (whose words the drill cannot know): the last of them, notes aside, is
 * marked final in the turn's metadata. Pure.
 */
export function isFinalPart(metadatas: readonly (string | undefined)[]): boolean {
  const payloads = metadatas.map((m) => {
    try {
      return (JSON.parse(m ?? '{}') as { event_payload?: { final?: unknown; note?: unknown } }).event_payload;
    } catch {
      return undefined;
    }
  });
  return payloads.filter((p) => p?.note !== true).at(-1)?.final === true;
}

/**
 * Whether a thread's replies, in ts order, hold one whole answer: every
 * numbered word once, in order, up to its end mark; or, for the short demo
 * answer, its closing "(instance)." Pure.
 */
export function isWholeAnswer(texts: readonly string[]): boolean {
  // Joined as they are: a part may end mid-word, and a splitter may have dropped the space between parts.
  const joined = texts.join('');
  const words = [...joined.matchAll(/w(\d+)/g)].map((m) => Number(m[1]));
  const end = END.exec(joined);
  if (!end) return words.length === 0 && /Answered by .+ \([\w.-]+\)\./.test(joined);
  return words.length === Number(end[1]) && words.every((n, i) => n === i + 1);
}

/** A person notices a reply this late. */
export const LATE_MS = 10_000;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * `ends.dead`: mentions that are dead letters. A mention answered and dead
 * too is counted (`answeredThenDead`). `ends.expectedDead`: mentions meant to
 * end as dead letters (a bot that hangs on them): one of those that is a dead
 * letter has its end, and is not lost.
 */
export function scoreScenario(
  mentions: readonly string[],
  attempts: readonly Attempt[],
  replies: readonly Reply[],
  ends: { dead?: ReadonlySet<string>; expectedDead?: ReadonlySet<string> } = {},
): ScenarioScore {
  const counts = new Map<string, number>(mentions.map((m) => [m, 0]));
  for (const r of replies) if (counts.has(r.mention)) counts.set(r.mention, counts.get(r.mention)! + 1);
  const dead = ends.dead ?? new Set<string>();
  const endedDead = (m: string) => dead.has(m) && (ends.expectedDead?.has(m) ?? false);
  const lostMentions = [...counts].filter(([m, n]) => n === 0 && !endedDead(m)).map(([m]) => m);
  const answeredThenDeadMentions = [...counts].filter(([m, n]) => n > 0 && dead.has(m)).map(([m]) => m);
  const doubledMentions = [...counts].filter(([, n]) => n > 1).map(([m]) => m);
  const latencies = attempts
    .filter((a) => a.answeredAt !== undefined)
    .map((a) => a.answeredAt! - a.sentAt)
    .sort((a, b) => a - b);
  const ours = replies.filter((r) => counts.has(r.mention));
  const firstSent = new Map<string, number>();
  for (const a of attempts) firstSent.set(a.mention, Math.min(firstSent.get(a.mention) ?? Infinity, a.sentAt));
  const firstReply = new Map<string, number>();
  for (const r of ours) firstReply.set(r.mention, Math.min(firstReply.get(r.mention) ?? Infinity, r.at));
  const waits = [...firstReply].map(([m, at]) => at - (firstSent.get(m) ?? at));
  return {
    sent: mentions.length,
    answered: [...counts.values()].filter((n) => n > 0).length,
    lost: lostMentions.length,
    duplicateReplies: [...counts.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0),
    retries: attempts.filter((a) => a.retryNum > 0).length,
    servedByHub: ours.filter((r) => r.by === 'hub').length,
    servedByCloud: ours.filter((r) => r.by === 'cloud').length,
    takenOver: mentions.filter((m) => {
      const acked = attempts.find((a) => a.mention === m && a.claim === 'claimed' && typeof a.status === 'number' && a.status < 300);
      return acked?.role === 'hub' && ours.some((r) => r.mention === m && r.by === 'cloud');
    }).length,
    ackP50Ms: percentile(latencies, 50),
    ackP99Ms: percentile(latencies, 99),
    deadlineMisses: attempts.filter((a) => a.status === 'timeout' || (a.answeredAt !== undefined && a.answeredAt - a.sentAt > 3000)).length,
    lostMentions,
    doubledMentions,
    answeredThenDead: answeredThenDeadMentions.length,
    answeredThenDeadMentions,
    late: waits.filter((w) => w > LATE_MS).length,
    caughtUp: new Set(ours.filter((r) => r.caughtUp).map((r) => r.mention)).size,
    maxWaitMs: waits.length ? Math.max(...waits) : 0,
  };
}
