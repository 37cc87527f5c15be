/**
 * What each copy did, for the playground's timeline: a copy's JSON log line
 * read as a few words (claimed, streamed, took over, retried), or nothing for
 * the lines a person need not see. Pure.
 */
export interface TimelineEntry {
  at: number;
  /** drill-hub, drill-cloud, or you (writing, at the switches). */
  who: string;
  what: string;
}

/** turn.replied's `stream`: how the answer reached the thread. */
const REPLIED: Record<string, string> = {
  streamed: 'streamed the answer',
  posted: 'posted the answer',
  completed: 'completed the message begun before',
  updated: 'completed the message begun before',
  stopped: 'stopped where the person pressed Stop',
};

const WORDS: Record<string, (f: Record<string, unknown>) => string> = {
  'delivery.acked': (f) => `acked Slack's delivery in ${Number(f.ackMs ?? 0)} ms`,
  'claim.confirmed': (f) => (f.reclaimed ? 'claimed the turn again' : 'claimed the turn'),
  'delivery.duplicate': () => 'saw a delivery already claimed: left it',
  'lease.takeover': () => "took over a turn whose owner's lease lapsed",
  'turn.reclaimed': () => 'reclaimed a turn to retry it',
  'turn.replied': (f) => `${REPLIED[String(f.stream)] ?? 'answered'} (${Number(f.parts ?? 1)} message(s), ${Number(f.ms ?? 0)} ms)`,
  'turn.failed': (f) => `the turn failed (${String(f.failure ?? 'error')})${f.retryInMs !== undefined ? `: retry in ${Number(f.retryInMs)} ms` : ''}`,
  'turn.stopped_by_user': () => 'stopped writing: the person pressed Stop',
  'turn.abandoned': () => 'stopped writing: no longer owns the turn',
  'turn.dead_letter': () => 'gave the turn up: a dead letter',
  'lease.lost': () => 'lost its lease',
  'lease.renew_failed': () => 'could not renew its lease',
  'ratelimit.refusal': () => 'Slack refused a write (rate limited): waiting',
  'store.write_failed': () => 'the store did not answer a write',
  // A question's answer runs the turn again under its own event id (lib/ask), injected as a catch-up find is.
  'catchup.found': () => 'caught up a mention Slack gave up on',
  'delivery.shed': () => 'too busy: sent the delivery back',
  'app.started': () => 'started',
  'turn.parked': () => 'asked a question: the turn waits for a click (parked)',
  'ask.answered': () => 'took the answer: the turn runs again from the top',
  'ask.not_yours': () => 'refused a click from someone not asked',
  'feedback.heard': (f) => `heard a feedback click (${f.positive ? 'positive' : 'negative'})`,
  'feedback.unheard': () => 'got a feedback click; the bot exports no onFeedback',
};

export function timelineEntry(instance: string, line: string): TimelineEntry | undefined {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const words = WORDS[String(fields.event ?? '')];
  if (!words) return undefined;
  // The logger stamps each line with `at` (ISO time).
  const at = typeof fields.at === 'string' ? Date.parse(fields.at) : Date.now();
  return { at: Number.isFinite(at) ? at : Date.now(), who: instance, what: words(fields) };
}
