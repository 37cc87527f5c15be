/**
 * What a person saw of each mention's answer, read from the calls that reached
 * the fake Web API: when the first visible sign came (a thinking status, or the
 * reply's first words: a post or a stream's start), and when the whole answer
 * had (the stream's stop, or the last write to the reply). A pure function of
 * the recorded calls, so the bench's figure is tested with tables.
 */

/** One call as the fake Web API records it (drill/sim/fake-web-api.ts's RecordedCall, the fields read here). */
export interface SeenCall {
  method: string;
  params: Record<string, string>;
  /** When it reached Slack (ms since the epoch). */
  at: number;
  status: number;
  answer?: unknown;
}

export interface Seen {
  /** The first status or first words, or undefined if none came. */
  first?: number;
  /** The last write to the reply (its stop when streamed). */
  last?: number;
  /** Whether the reply is complete: its stream stopped, or a post made without a stream. */
  whole: boolean;
  /** Every call that reached Slack for this mention and was taken, in order: its method and when. */
  calls: Array<[string, number]>;
}

/** A status a person sees: setStatus with text (an empty status clears it). */
const STATUS = 'assistant.threads.setStatus';
/** Calls that put a reply's words in the thread. */
const FIRST_WORDS = new Set(['chat.postMessage', 'chat.startStream']);
/** Calls that write to the reply once it is there. */
const WRITES = new Set(['chat.postMessage', 'chat.startStream', 'chat.appendStream', 'chat.stopStream', 'chat.update']);

/**
 * For each mention by its message ts (the thread its answer goes in): what was seen and when.
 * Calls must come in the order they reached Slack (the fake records them so); refused calls
 * (not 200 with `ok: true`) showed nothing and are skipped.
 */
export function seenByThread(calls: readonly SeenCall[], threads: readonly string[]): Map<string, Seen> {
  const wanted = new Set(threads);
  const seen = new Map<string, Seen>(threads.map((t) => [t, { whole: false, calls: [] }]));
  /** A reply's ts -> the thread it is in (appends, the stop and an update name the message, not the thread). */
  const replyThread = new Map<string, string>();
  /** Threads whose reply was streamed: a post in them is not the whole answer by itself. */
  const streamed = new Set<string>();
  for (const c of calls) {
    const ok = c.status === 200 && (c.answer as { ok?: unknown } | undefined)?.ok === true;
    if (!ok) continue;
    if (FIRST_WORDS.has(c.method) && c.params.thread_ts) {
      const ts = (c.answer as { ts?: unknown }).ts;
      if (typeof ts === 'string') replyThread.set(ts, c.params.thread_ts);
    }
    const thread = FIRST_WORDS.has(c.method) || c.method === STATUS ? c.params.thread_ts : replyThread.get(c.params.ts ?? '');
    if (thread === undefined || !wanted.has(thread)) continue;
    const s = seen.get(thread)!;
    s.calls.push([c.method, c.at]);
    const visible = (c.method === STATUS && (c.params.status ?? '') !== '') || FIRST_WORDS.has(c.method);
    if (visible && s.first === undefined) s.first = c.at;
    if (!WRITES.has(c.method)) continue;
    s.last = c.at;
    if (c.method === 'chat.startStream') streamed.add(thread);
    if (c.method === 'chat.stopStream' || (c.method === 'chat.postMessage' && !streamed.has(thread))) s.whole = true;
  }
  return seen;
}
