/**
 * A copy's side of the inbox: the deliveries the edge kept while no copy
 * answered are run here, oldest first, each through the same claim as a
 * live delivery (so one that also reached a copy, that Slack also retried,
 * or that the catch-up sweep also found, runs once), and removed once run
 * or found already run.
 *
 * When: at start, when asked (the peer came back), and on the reaper's
 * looks, where it costs one ZCARD at most every `checkEveryMs` (an hour:
 * 24 commands a day a copy, about 4% of two idle copies' 1,152).
 *
 * A kept delivery's signature is checked as of its arrival, not now: it was
 * good when Slack sent it, and its age is the outage's, not a replay's.
 */
import { checkSignature } from '../slack/index.js';
import { keptKind, parseKept, type KeptDelivery, type KeptKind } from './kept.js';
import type { InboxStats, InboxStore } from './store.js';
import type { Logger } from '../log/index.js';

type ClaimKind = 'claimed' | 'duplicate' | 'fail-open';

export interface DrainerPorts {
  store: InboxStore;
  /** The copy's store sealer (lib/store/seal.ts), which opens what the edge sealed. */
  open(sealed: string): string | undefined;
  signingSecret: string;
  /** An Events API callback, claimed and answered late in its thread (the receiver's catch-up entry). */
  injectEvent(envelope: Record<string, unknown>): Promise<ClaimKind | string>;
  /**
   * A slash command or an interaction, claimed as a live one is and run by the app with its response_url: 'ran',
   * 'duplicate' (a copy took it live, or drained it first), 'retry' (the claim did not answer) or 'dropped'.
   */
  runForm?(kept: KeptDelivery, kind: 'command' | 'interaction'): Promise<'ran' | 'duplicate' | 'retry' | 'dropped'>;
  /** Told once per outage how many are kept, and again when all are answered. */
  tellOwner(text: string): Promise<void>;
  /**
   * Marks the outage across the copies: 'first' for the one copy whose mark took (it tells the owner), 'marked'
   * when one is already held, undefined when the store did not answer.
   */
  markOutage(size: number): Promise<'first' | 'marked' | undefined>;
  /** Ends the marked outage: the size it was marked with, for the one copy that ends it; undefined for any other. */
  endOutage(): Promise<number | undefined>;
  /**
   * The edge has refused `refused` deliveries (ever) because the inbox was full: true for the one copy that tells
   * the owner of this count (once across the copies), false for any other or when the store did not answer.
   */
  refusedFirst?(refused: number): Promise<boolean>;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  now: () => number;
  /** @default 3,600,000 */
  checkEveryMs?: number;
  /** Entries read per round. @default 50 */
  batch?: number;
}

export interface DrainResult {
  ran: number;
  alreadyRun: number;
  dropped: number;
  /** Left for a later drain (the store or a claim did not answer). */
  left: number;
}

/**
 * The owner's note when the inbox is empty again, told once an outage across the copies. Each kept delivery was
 * taken up with the life of a live one: answered, or retried and, when it cannot be answered, a dead letter told on
 * its own (never "answered" unasked); or dropped, because no copy could run it: `dropped` across the copies, of them
 * `unopened` sealed with another key (lib/inbox/store.ts counts each once, however many copies drained it).
 */
export function outageEndText(count: number, dropped = 0, unopened = 0): string {
  if (dropped === 0) return `All ${count} deliveries the edge kept are taken up: each is answered, or told to you as a dead letter if it cannot be.`;
  const why = droppedWhy(unopened);
  // None taken up: "the rest are taken up" would tell the owner of answers that never came.
  if (dropped >= count) return `The edge's inbox is empty again: none of the ${count} deliveries it kept could be run, and they are lost.${why}`;
  return `The edge's inbox is empty again: of the ${count} deliveries it kept, ${dropped} could not be run and are lost; the rest are taken up, each answered or told to you as a dead letter.${why}`;
}

/**
 * The owner's note when the inbox is empty again but the store did not say how many kept deliveries no copy could
 * run: never "all taken up", which may be false; the copies' logs name each one dropped.
 */
export function outageEndUnreadText(count: number): string {
  return `The edge's inbox is empty again: it kept ${count} deliveries, and the store did not answer when asked how many of them could not be run, so some may be lost; each copy logs every one it could not run (inbox.dropped).`;
}

/** How many times the drain that ends an outage asks for its lost counts before it says it could not read them. */
const LOST_READS = 3;

/**
 * The owner's note as an outage's kept deliveries are first read: nothing is run yet, so it promises no answer
 * (it said "answering them now" when none could be opened); the end's note says what became of them.
 */
export function outageStartText(count: number): string {
  return `While no copy could answer, the edge kept ${count} deliveries from Slack. Taking them up now, late; I'll tell you when they are done, with any that cannot be run.`;
}

/** The owner's note when the edge refused deliveries because its inbox was full (a count since the store began). */
export function refusedText(refused: number): string {
  return `The edge's inbox was full (AUTOHUB_INBOX_MAX): ${refused} ${refused === 1 ? 'delivery was' : 'deliveries were'} refused with 503 so far. Slack retries an event for a while; a refused slash command or click is lost.`;
}

/** Why kept deliveries were dropped, when some could not be opened: the way to check (never only logged). */
function droppedWhy(unopened: number): string {
  return unopened > 0
    ? ` ${unopened} could not be opened: the edge seals with another key than the copies' (AUTOHUB_STORE_KEY, or SLACK_SIGNING_SECRET without one); \`npm run verify\` compares them.`
    : '';
}

export class InboxDrainer {
  #p: DrainerPorts;
  #running: Promise<DrainResult> | undefined;
  #next: Promise<DrainResult> | undefined;
  #lastCheck = Number.NEGATIVE_INFINITY;
  #last: InboxStats | undefined;

  constructor(ports: DrainerPorts) {
    this.#p = ports;
  }

  /** What the last look saw: for `/autohub status` and the health body. */
  get last(): InboxStats | undefined {
    return this.#last;
  }

  /** A reaper look: drains only when the hourly check finds something. */
  look(): void {
    const now = this.#p.now();
    if (now - this.#lastCheck < (this.#p.checkEveryMs ?? 3_600_000)) return;
    this.#lastCheck = now;
    void this.drain('look').catch(() => {});
  }

  /**
   * One drain at a time. A call while one runs gets the next drain, started when that one ends (calls meanwhile
   * share it): what was kept before the call is read, though the running drain's read came before it.
   */
  drain(reason: string): Promise<DrainResult> {
    if (this.#running) {
      this.#next ??= this.#running.then(() => {
        this.#next = undefined;
        return this.drain(reason);
      });
      return this.#next;
    }
    this.#running = this.#drain(reason).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #drain(reason: string): Promise<DrainResult> {
    const p = this.#p;
    const result: DrainResult = { ran: 0, alreadyRun: 0, dropped: 0, left: 0 };
    let stats: InboxStats;
    try {
      stats = await p.store.stats();
    } catch (error) {
      p.log.warn('inbox.unreachable', { reason, error });
      return result;
    }
    this.#last = stats;
    // A full inbox refused deliveries (503): Slack retries an event a while, a command or a click is lost. Told once a count.
    if ((stats.refused ?? 0) > 0 && (await p.refusedFirst?.(stats.refused ?? 0).catch(() => false))) {
      p.log.error('inbox.refused_told', { refused: stats.refused });
      await p.tellOwner(refusedText(stats.refused ?? 0)).catch(() => {});
    }
    if (stats.size === 0) return result;
    // One mark an outage, across the copies (two that drain at once see different sizes and oldest entries).
    if ((await p.markOutage(stats.size).catch(() => undefined)) === 'first') {
      p.log.info('inbox.outage_told', { size: stats.size, oldestAt: stats.oldestAt });
      await p.tellOwner(outageStartText(stats.size)).catch(() => {});
    }
    p.log.info('inbox.drain', { reason, size: stats.size, oldestAt: stats.oldestAt });
    const seen = new Set<string>();
    for (;;) {
      let taken: Awaited<ReturnType<DrainerPorts['store']['take']>>;
      try {
        taken = await p.store.take(p.batch ?? 50);
      } catch (error) {
        // The store went away mid-drain: what is left stays kept for the next drain.
        p.log.warn('inbox.unreachable', { reason, error });
        return result;
      }
      const batch = taken.filter((m) => !seen.has(m.member));
      if (batch.length === 0) break;
      let progressed = false;
      for (const { member } of batch) {
        seen.add(member);
        const outcome = await this.#one(member).catch(() => 'retry' as const);
        if (outcome === 'retry') {
          result.left += 1;
          continue;
        }
        progressed = true;
        if (outcome === 'dropped' || outcome === 'unopened') {
          // Counted where the outage's end reads it, by the one copy whose drop removed it (another may drain it too).
          if (await p.store.drop(member, outcome === 'unopened').catch(() => false)) result.dropped += 1;
          continue;
        }
        result[outcome] += 1;
        await p.store.remove(member).catch(() => {});
      }
      if (!progressed) break;
    }
    const after = await p.store.stats().catch(() => undefined);
    if (after) this.#last = after;
    p.log.info('inbox.drained', { reason, ...result, size: after?.size });
    const told = after?.size === 0 ? await p.endOutage().catch(() => undefined) : undefined;
    if (told !== undefined) {
      // Never silent: what no copy could run is lost, and the owner hears how many and why, once across the copies.
      const lost = await this.#takeLost();
      if (lost === undefined) {
        // Read as none lost, a store that did not answer told the owner "all taken up" of deliveries no copy could open.
        p.log.error('inbox.lost_unread', { reason, size: told });
        await p.tellOwner(outageEndUnreadText(told)).catch(() => {});
        return result;
      }
      if (lost.dropped > 0) p.log.error('inbox.dropped_told', { reason, ...lost, size: told });
      else p.log.info('inbox.outage_answered', { size: told });
      await p.tellOwner(outageEndText(told, lost.dropped, lost.unopened)).catch(() => {});
    }
    return result;
  }

  /**
   * The outage's lost counts, asked up to `LOST_READS` times under one receipt (a read whose reply was lost had
   * reset them: asked again, the receipt answers what it took); undefined when the store never answered.
   */
  async #takeLost(): Promise<{ dropped: number; unopened: number } | undefined> {
    const receipt = crypto.randomUUID();
    for (let read = 1; read <= LOST_READS; read += 1) {
      try {
        return await this.#p.store.takeLost(receipt);
      } catch (error) {
        this.#p.log.warn('inbox.unreachable', { reason: 'lost counts', read, error });
      }
    }
    return undefined;
  }

  async #one(member: string): Promise<'ran' | 'alreadyRun' | 'dropped' | 'unopened' | 'retry'> {
    const p = this.#p;
    const opened = p.open(member);
    const kept = opened === undefined ? undefined : parseKept(opened);
    if (!kept) {
      // Sealed under a key this copy does not hold, or not a kept delivery: nothing here can run it.
      // The key it was sealed under is written in it (seal.ts): named, so the owner can tell which side differs.
      p.log.error('inbox.dropped', { reason: 'cannot open', sealedWith: member.split('.')[1] });
      return 'unopened';
    }
    const signature = await checkSignature({
      signingSecret: p.signingSecret,
      timestamp: kept.headers['x-slack-request-timestamp'],
      signature: kept.headers['x-slack-signature'],
      body: new TextEncoder().encode(kept.body),
      now: kept.arrivedAt,
    });
    if (!signature.ok) {
      p.log.error('inbox.dropped', { reason: `signature ${signature.reason} at arrival` });
      return 'dropped';
    }
    const kind: KeptKind = keptKind(kept.headers['content-type'], kept.body);
    if (kind === 'event') {
      const envelope = JSON.parse(kept.body) as Record<string, unknown>;
      // Answered late, with the late note, in its thread (as a swept mention is).
      const outcome = await p.injectEvent({ ...envelope, autohub_catchup: true });
      if (outcome === 'claimed') return 'ran';
      if (outcome === 'duplicate') return 'alreadyRun';
      return 'retry';
    }
    if ((kind === 'command' || kind === 'interaction') && p.runForm) {
      const outcome = await p.runForm(kept, kind);
      return outcome === 'duplicate' ? 'alreadyRun' : outcome;
    }
    p.log.warn('inbox.dropped', { reason: `nothing runs a kept ${kind}` });
    return 'dropped';
  }
}
