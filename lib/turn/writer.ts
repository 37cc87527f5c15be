/**
 * Writing a turn's reply into the thread: posted, or streamed as it is
 * written, in as many messages as Slack's limits need (lib/turn/parts.ts),
 * each with the turn's metadata; the last one says the reply is whole.
 *
 *   - Every call goes through the turn's fenced client: it leaves only while
 *     this copy holds the turn (the fence is in the rate-limit fetch).
 *   - A streamed message's ts goes into the lease the moment Slack answers
 *     chat.startStream, so a taker-over completes *these* messages (stop what
 *     is still open, then chat.update each with the new, complete answer)
 *     instead of adding a second reply.
 *   - Appends are batched, at most one a second (chat.appendStream is Tier 4
 *     for the whole app); the rest goes with the stop. chat.startStream and
 *     chat.stopStream are Tier 2: while their window is closed the reply is posted.
 *   - Slack's stream errors (https://docs.slack.dev/reference/methods/chat.appendStream):
 *     `message_not_in_streaming_state` (Slack closed it after about 5 minutes):
 *     finished with chat.update; `stopped_by_user` (the person pressed Stop):
 *     the turn is answered as far as it got, nothing more is written;
 *     `channel_type_not_supported`, `missing_recipient_*`, `streaming_mode_mismatch`
 *     at the start (nothing visible yet): the reply is posted instead.
 */
import type { WebClient } from '@slack/web-api';
import { partMetadata, PART_CHARS, splitText } from './parts.js';
import { rollover, startOf, type Rollover } from './split.js';
import type { ReplyTarget } from './thread.js';

export interface StreamTarget extends ReplyTarget {
  /** Outside a DM Slack wants the recipient's user and team ids (the team is the user's own, `user_team`, for Slack Connect). */
  recipientUser?: string | undefined;
  recipientTeam?: string | undefined;
}

/** What the writer needs of the turn's lease (absent for a turn whose claim failed open). */
export interface PartsLedger {
  /** Messages an earlier run (or this one) of the turn wrote: complete these, never add a second reply. */
  readonly parts: readonly string[];
  /** Record the reply's messages so far (one store command), before anything is appended to the newest. */
  recordParts(ts: readonly string[]): Promise<void>;
  /** Slack has confirmed this many characters of the reply (kept with the next renewal, at no cost). */
  confirmed(chars: number): void;
}

export interface WriterOptions {
  /** Whether Slack's window for a method is closed now (the rate-limit layer's word). */
  closed: (method: string) => boolean;
  /** The least time between two appends. @default 1000 */
  appendEveryMs?: number;
  /** @default PART_CHARS */
  partChars?: number;
  /** Channels where Slack refused a stream as unsupported (one set per copy): their replies are posted from then on. */
  noStream?: Set<string>;
  now?: () => number;
}

/** What the reply came to, for logs and the status page. */
export interface WriteOutcome {
  /** The reply's first message. */
  ts: string | undefined;
  /** Every message of the reply, in order. */
  parts: string[];
  how: 'streamed' | 'posted' | 'completed' | 'updated' | 'stopped';
  chunks: number;
}

export function slackError(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Start errors after which the same text can simply be posted: nothing was made visible. */
const CANNOT_STREAM_HERE = new Set([
  'channel_type_not_supported',
  'missing_recipient_user_id',
  'missing_recipient_team_id',
  'streaming_mode_mismatch',
  'not_allowed_token_type',
]);

type Blocks = readonly Record<string, unknown>[] | undefined;

export class ReplyWriter {
  /** The message this writer has open (started, not yet stopped), if any: a turn that fails mid-stream closes it. */
  open: string | undefined;
  readonly #every: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(
    private readonly client: WebClient,
    private readonly target: StreamTarget,
    private readonly ledger: PartsLedger | undefined,
    private readonly o: WriterOptions,
  ) {
    this.#every = o.appendEveryMs ?? 1000;
    this.#max = o.partChars ?? PART_CHARS;
    this.#now = o.now ?? Date.now;
  }

  /** A whole text: posted (or, when an earlier run of the turn wrote messages, written into them). */
  async writeText(text: string, blocks?: Blocks): Promise<WriteOutcome> {
    const earlier = this.ledger?.parts ?? [];
    if (earlier.length > 0) return { ...(await this.complete(earlier, text, blocks)), how: 'completed', chunks: 1 };
    return { ...(await this.post(text, blocks)), chunks: 1 };
  }

  /** Write `chunks` (the first may be the late note) into the thread. */
  async write(chunks: AsyncIterable<string>, blocks?: Blocks): Promise<WriteOutcome> {
    const earlier = this.ledger?.parts ?? [];
    if (earlier.length > 0) {
      const { text, count } = await collect(chunks);
      return { ...(await this.complete(earlier, text, blocks)), how: 'completed', chunks: count };
    }
    if (this.o.noStream?.has(this.target.channel) || this.o.closed('chat.startStream') || this.o.closed('chat.stopStream')) {
      const { text, count } = await collect(chunks);
      return { ...(await this.post(text, blocks)), chunks: count };
    }
    return this.#stream(chunks, blocks);
  }

  /** The whole text as posts, split within Slack's limits, the metadata on each, `final` on the last. */
  async post(text: string, blocks?: Blocks, from = 0): Promise<Omit<WriteOutcome, 'chunks'>> {
    const pieces = splitText(text, this.#max);
    const parts: string[] = [];
    for (const [i, piece] of pieces.entries()) {
      const last = i === pieces.length - 1;
      const result = await this.client.chat.postMessage({
        channel: this.target.channel,
        thread_ts: this.target.threadTs,
        text: piece,
        metadata: partMetadata(this.target.eventId, from + i, last),
        ...(last && blocks ? { blocks: blocks as never } : {}),
      });
      if (result.ts) parts.push(result.ts);
    }
    return { ts: parts[0], parts, how: 'posted' };
  }

  /**
   * Make `earlier` hold `text` for good: each message stopped if Slack still
   * has it open, then rewritten with its piece (`markdown_text`, as streamed);
   * what does not fit is posted after them.
   */
  async complete(earlier: readonly string[], text: string, blocks?: Blocks): Promise<Omit<WriteOutcome, 'chunks'>> {
    const pieces = splitText(text, this.#max);
    const parts: string[] = [];
    for (const [i, ts] of earlier.entries()) {
      const piece = pieces[i];
      const last = i === pieces.length - 1 || (piece === undefined && i === earlier.length - 1);
      await this.#finishOpen(ts);
      // chat.update refuses markdown_text beside blocks (markdown_text_conflict): with the bot's blocks the
      // piece goes first as a markdown block, and as `text` for notifications.
      const withBlocks = last && piece !== undefined && blocks ? [{ type: 'markdown', text: piece }, ...blocks] : undefined;
      await this.client.chat.update({
        channel: this.target.channel,
        ts,
        // A message a shorter answer no longer needs says so; it cannot be left half-written.
        ...(withBlocks ? { text: piece, blocks: withBlocks as never } : { markdown_text: piece ?? '_(continued above)_' }),
        metadata: partMetadata(this.target.eventId, i, piece !== undefined && last),
      } as never);
      parts.push(ts);
    }
    if (pieces.length > earlier.length) {
      const rest = await this.post(pieces.slice(earlier.length).join(''), blocks, earlier.length);
      parts.push(...rest.parts);
    }
    return { ts: parts[0], parts, how: 'updated' };
  }

  /** Stop a message Slack may still have open; already stopped (by us, by Slack or by the person) is fine. */
  async #finishOpen(ts: string): Promise<void> {
    await this.client.chat.stopStream({ channel: this.target.channel, ts }).catch((error: unknown) => {
      const code = slackError(error);
      if (code !== 'message_not_in_streaming_state' && code !== 'stopped_by_user' && code !== 'streaming_mode_mismatch') throw error;
    });
  }

  async #stream(chunks: AsyncIterable<string>, blocks: Blocks): Promise<WriteOutcome> {
    const { target, client } = this;
    const iterator = chunks[Symbol.asyncIterator]();
    let count = 0;
    let pending = '';
    // The first call carries text: skip empty chunks (Slack's docs want markdown_text or chunks on the start).
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      count += 1;
      pending += next.value;
      if (pending !== '') break;
    }
    if (pending === '') return { ts: undefined, parts: [], how: 'streamed', chunks: count };

    const parts: string[] = [];
    /** The open message's text as Slack has it: a code block reopened at its start, and closed at its end, included. */
    let held = '';
    let full = pending;
    /** Characters of the reply Slack has accepted (a reopened or closed code block's markers not counted). */
    let sent = 0;
    let lastAppend = this.#now();
    const startPart = async (head: string, text: string): Promise<'started' | 'cannot'> => {
      try {
        const started = await client.chat.startStream({
          channel: target.channel,
          thread_ts: target.threadTs,
          markdown_text: head + text,
          ...(target.recipientUser ? { recipient_user_id: target.recipientUser } : {}),
          ...(target.recipientTeam ? { recipient_team_id: target.recipientTeam } : {}),
        });
        if (!started.ts) throw new Error('chat.startStream answered without a ts');
        parts.push(started.ts);
        this.open = started.ts;
      } catch (error) {
        const code = slackError(error);
        if (parts.length === 0 && code && CANNOT_STREAM_HERE.has(code)) {
          if (code === 'channel_type_not_supported') this.o.noStream?.add(target.channel);
          return 'cannot';
        }
        throw error;
      }
      held = head + text;
      sent += text.length;
      await this.ledger?.recordParts(parts);
      this.ledger?.confirmed(sent);
      lastAppend = this.#now();
      return 'started';
    };

    const first = startOf('', pending, this.#max);
    if ((await startPart('', pending.slice(0, first.take))) === 'cannot') {
      const rest = await collectRest(iterator);
      return { ...(await this.post(pending + rest.text, blocks)), chunks: count + rest.count };
    }
    pending = pending.slice(first.take);

    type Ended = 'expired' | 'stopped' | undefined;
    // Send `text` into the open message: an append, or (last) the stop with metadata; `tail` closes a code block left open.
    const send = async (text: string, stop: { final: boolean } | undefined, tail = ''): Promise<Ended> => {
      const ts = parts[parts.length - 1]!;
      try {
        if (stop) {
          await client.chat.stopStream({
            channel: target.channel,
            ts,
            ...(text + tail ? { markdown_text: text + tail } : {}),
            metadata: partMetadata(target.eventId, parts.length - 1, stop.final),
            ...(stop.final && blocks ? { blocks: blocks as never } : {}),
          } as never);
          this.open = undefined;
        } else {
          await client.chat.appendStream({ channel: target.channel, ts, markdown_text: text });
          lastAppend = this.#now();
        }
      } catch (error) {
        const code = slackError(error);
        if (code === 'message_not_in_streaming_state' || code === 'stopped_by_user') this.open = undefined;
        if (code === 'message_not_in_streaming_state') return 'expired';
        if (code === 'stopped_by_user') return 'stopped';
        throw error;
      }
      held += text + tail;
      sent += text.length;
      this.ledger?.confirmed(sent);
      return undefined;
    };
    // Roll over before the limit: fill this message (closing a code block left open), stop it, start the next (reopening it).
    // A message started full (cut where it reads well) is stopped right there: `planned` says how.
    const roll = async (planned?: Rollover): Promise<Ended> => {
      for (let plan = planned ?? rollover(held, pending, this.#max); plan; ) {
        const ended = await send(pending.slice(0, plan.take), { final: false }, plan.tail);
        if (ended) return ended;
        pending = pending.slice(plan.take);
        const start = startOf(plan.head, pending, this.#max);
        await startPart(plan.head, pending.slice(0, start.take));
        pending = pending.slice(start.take);
        plan = start.full ?? rollover(held, pending, this.#max);
      }
      return undefined;
    };

    // A first chunk longer than a message has filled this one: it rolls over before the next chunk is read.
    let ended: Ended = first.full ? await roll(first.full) : undefined;
    while (!ended) {
      const next = await iterator.next();
      if (next.done) break;
      count += 1;
      full += next.value;
      pending += next.value;
      ended = await roll();
      if (ended || pending === '' || this.#now() - lastAppend < this.#every) continue;
      ended = await send(pending, undefined);
      if (!ended) pending = '';
    }
    if (ended === 'stopped') {
      // The person pressed Stop: the answer ends where Slack stopped it. Nothing more is written.
      await iterator.return?.();
      return { ts: parts[0], parts, how: 'stopped', chunks: count };
    }
    if (ended === 'expired') {
      const rest = await collectRest(iterator);
      return { ...(await this.complete(parts, full + rest.text, blocks)), chunks: count + rest.count };
    }
    ended = await send(pending, { final: true });
    if (ended === 'stopped') return { ts: parts[0], parts, how: 'stopped', chunks: count };
    if (ended === 'expired') return { ...(await this.complete(parts, full, blocks)), chunks: count };
    return { ts: parts[0], parts, how: 'streamed', chunks: count };
  }
}

/** The whole of `chunks`, and how many there were. */
function collect(chunks: AsyncIterable<string>): Promise<{ text: string; count: number }> {
  return collectRest(chunks[Symbol.asyncIterator]());
}

async function collectRest(iterator: AsyncIterator<string>): Promise<{ text: string; count: number }> {
  let text = '';
  let count = 0;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    text += next.value;
    count += 1;
  }
  return { text, count };
}
