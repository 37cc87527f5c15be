/**
 * One turn's lease: kept alive by the copy's LeaseKeeper, a commit point
 * before posting, and the end of the turn: finished, handed back for a
 * retry, or dead-lettered.
 *
 * The commit costs no round trip while the lease is provably held: no other
 * copy can take a lease before it lapses on the store, and it cannot lapse
 * before heldUntil (send time of the last acknowledged claim or renewal +
 * leaseMs). `commitMarginMs` before that, the store is asked.
 */
import { LeaseLostError, StoreUnavailableError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import {
  retryDelayMs,
  type EndReply,
  type Leases,
  type LeaseSettings,
  type ReleaseReply,
  type RestoreDetail,
  type RetryPolicy,
  type StreamDetail,
  type Takeover,
  type TurnLine,
} from '../store/index.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { TurnFailure } from '../errors/index.js';

export type TurnOutcome = 'answered' | 'dead';

/** What a finished turn's signal aborts with: made once, so a turn that succeeds makes no error object. */
const FINISHED = new LeaseLostError('finished');

export interface TurnLeaseOptions {
  store: Pick<Leases, 'commit' | 'finish' | 'release' | 'deadLetter' | 'markStream'>;
  keeper: LeaseKeeper;
  key: string;
  token: number;
  settings: Pick<LeaseSettings, 'leaseMs'>;
  retry: RetryPolicy;
  log: Logger;
  now: () => number;
  /** When the claim or takeover that gave this token was sent. */
  sentAt: number;
  /** Set for a turn taken from the lease set (a dead owner's, a retry, a replay). */
  takeover?: Takeover;
  /** Write this turn's claim again when the store forgot it (see LeaseKeeper.restore). */
  restore?: (detail: RestoreDetail) => Promise<EndReply>;
  /** Waits between two sends of an end the store did not answer. @default setTimeout (unref'd) */
  sleep?: (ms: number) => Promise<void>;
  /** The status page's line for this turn's end. */
  line?: (outcome: TurnOutcome, detail: { reason?: string; attempts: number; stream?: StreamDetail }) => TurnLine;
}

/** The first wait before an unanswered end is sent again (then doubled, while the lease is held). */
const FINISH_RESEND_MS = 500;

const unrefSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

/** Safety before heldUntil: a post must leave this process well before the lease could lapse. */
export function commitMarginMs(leaseMs: number): number {
  return Math.min(2000, Math.floor(leaseMs / 4));
}

export class TurnLease {
  #lost = false;
  #ended = false;
  readonly key: string;
  readonly token: number;
  /** Aborts when this copy no longer owns the turn: the turn's `ctx.signal`. */
  readonly #abort = new AbortController();
  /** The reply's messages were written but their ts's did not reach the store (its answer was lost). */
  #partsUnrecorded = false;

  constructor(private readonly o: TurnLeaseOptions) {
    this.key = o.key;
    this.token = o.token;
  }

  get lost(): boolean {
    return this.#lost;
  }

  /** Aborts when this copy no longer owns the turn (lost, taken over, or stood down with `abort`). */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Stand the turn's work down (the person pressed Stop, the copy is stopping): `signal` aborts. */
  abort(reason: string | LeaseLostError): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(typeof reason === 'string' ? new LeaseLostError(reason) : reason);
  }

  get finished(): boolean {
    return this.#ended;
  }

  /** For a taken-over turn: the state it was taken in. */
  get previousState(): Takeover['state'] | undefined {
    return this.o.takeover?.state;
  }

  /** The messages of this turn's reply written so far (by an earlier run, or this one): complete them, never add a second reply. */
  get parts(): readonly string[] {
    return this.#parts ?? (this.o.takeover?.streamTs ? this.o.takeover.streamTs.split(',').filter(Boolean) : []);
  }

  #parts: string[] | undefined;

  /**
   * A streamed reply started a message: record the reply's messages in the
   * lease, so a taker-over completes them. Sent beside the stream's next
   * write (lib/turn/open-stream.ts): until it lands, a taker-over finds the
   * message in the thread (open, without metadata: the same window as the
   * one before chat.startStream answers; or stopped, with its metadata).
   * When the store's answer is lost, the next write of the turn records
   * them first (the fence will not let it go before).
   */
  async recordParts(ts: readonly string[]): Promise<void> {
    this.#parts = [...ts];
    const sentAt = this.o.now();
    let reply = await this.o.store.markStream(this.key, this.token, ts.join(','));
    // The store forgot the turn: written again with these messages (the restore reads them), so a taker-over completes them.
    if (reply === 'missing') reply = await this.o.keeper.restore(this.key, sentAt);
    if (reply === 'lost') {
      this.#lose('stream: another copy holds the turn');
      throw new LeaseLostError('recording the stream');
    }
    this.#partsUnrecorded = reply !== 'ok';
    if (this.#partsUnrecorded) this.o.log.warn('lease.stream_unrecorded', { key: this.key, reply });
  }

  /** Slack has confirmed `chars` characters of the streamed reply: kept in the lease with the next renewal. */
  confirmed(chars: number): void {
    this.o.keeper.progress(this.key, chars);
  }

  /** Runs of this turn so far, this one included. */
  get attempts(): number {
    return this.o.takeover?.attempts ?? 1;
  }

  /**
   * Read the thread before running the turn: a dead owner or an ambiguous
   * failure may have posted already. A retry after a clean refusal needs not.
   */
  get checkThreadFirst(): boolean {
    const t = this.o.takeover;
    return t !== undefined && !(t.state === 'retry' && !t.ambiguous);
  }

  /** Let the lease go here without a word to the store: a newer token of the same turn, held by this copy, replaces it. */
  release(): void {
    this.#ended = true;
    this.o.keeper.remove(this.key);
  }

  /** Start keeping the lease alive. */
  start(): void {
    this.o.keeper.add(this.key, this.token, this.o.sentAt + this.o.settings.leaseMs, (reason) => this.#lose(reason), this.o.restore && this.#rewrite);
    // A look's take counts no death until its taker renews it: renewed at once, so a taker that dies running it counts.
    if (this.o.takeover) this.o.keeper.renewSoon();
  }

  /** This turn's claim written again when the store forgot it, with its runs and its streamed message ('lost' without a hook). */
  readonly #rewrite = async (): Promise<EndReply> =>
    this.o.restore ? this.o.restore({ attempts: this.attempts, ...(this.parts.length > 0 ? { streamTs: this.parts.join(',') } : {}) }) : 'lost';

  #lose(reason: string): void {
    if (this.#lost || this.#ended) return;
    this.#lost = true;
    this.o.keeper.remove(this.key);
    this.abort(reason);
    this.o.log.warn('lease.lost', { key: this.key, token: this.token, reason });
  }

  /**
   * The fence, run by the rate-limit fetch at the moment each of the turn's
   * Slack writes would leave, after any wait. It resolves when this copy
   * provably holds the lease for the request's flight: free while the last
   * acknowledged claim, renewal or commit leaves more than `commitMarginMs`
   * of the lease (no other copy can take it before it lapses on the store);
   * otherwise (a long wait, a frozen process, failed renewals) one commit to
   * the store re-confirms it. Throws LeaseLostError when another copy holds
   * the turn (stand down), StoreUnavailableError when the store cannot say.
   */
  async confirm(at = 'write', restoreOnce = true): Promise<void> {
    if (this.#lost || this.#abort.signal.aborted) throw new LeaseLostError(at);
    if (this.#ended) throw new LeaseLostError(`${at} after the turn ended`);
    const { keeper, store, settings, now } = this.o;
    if (this.#partsUnrecorded) await this.recordParts(this.parts);
    if (this.#partsUnrecorded) throw new StoreUnavailableError('recording the stream');
    if (now() < keeper.heldUntil(this.key) - commitMarginMs(settings.leaseMs)) return;
    const sentAt = now();
    const reply = await store.commit(this.key, this.token, settings.leaseMs);
    if (reply === 'ok') {
      keeper.extend(this.key, sentAt + settings.leaseMs);
      // Frozen after sending the commit and before its answer: the answer proves nothing about now.
      if (now() < sentAt + settings.leaseMs - commitMarginMs(settings.leaseMs)) return;
      throw new StoreUnavailableError('commit answered too late');
    }
    if (reply === 'lost') {
      this.#lose(`${at}: another copy holds the turn`);
      throw new LeaseLostError(at);
    }
    // The store forgot the turn: written again, then asked again (a restore that lost gives the lease up).
    if (reply === 'missing' && restoreOnce && (await keeper.restore(this.key, sentAt)) !== 'unreachable') return this.confirm(at, false);
    throw new StoreUnavailableError('commit');
  }

  /**
   * The commit point as a value: true when this turn may write now, false
   * when its lease is gone. Throws StoreUnavailableError when the store cannot
   * say (the turn is then retried, and the next run reads the thread first).
   */
  async commit(): Promise<boolean> {
    try {
      await this.confirm('commit');
      return true;
    } catch (error) {
      if (error instanceof LeaseLostError) return false;
      throw error;
    }
  }

  /** The turn is over (with the reply's ts, or null when it posted nothing; how a streamed reply went). */
  async finish(replyTs: string | null, stream?: StreamDetail): Promise<void> {
    if (this.#ended || this.#lost) return;
    this.#ended = true;
    this.abort(FINISHED);
    const line = this.o.line?.('answered', { attempts: this.attempts, ...(stream ? { stream } : {}) });
    // Forgotten by the store: written again first, so a later delivery of the message is a duplicate of a done turn.
    const send = () => this.#restoredFor(() => this.o.store.finish(this.key, this.token, replyTs, line));
    let reply = await send();
    // Unanswered, the end is sent again while the lease is provably this copy's (the keeper renews it meanwhile, so
    // it cannot lapse). Left unrecorded, the lease lapsed and a takeover ran the turn again: a mention's takeover
    // reads its thread first, but a command's or a click's answer cannot be read back, so it was answered twice.
    // (A store away for longer than the lease leaves the turn to the takeover, as before.)
    let resent = 0;
    for (let wait = FINISH_RESEND_MS; reply === 'unreachable' && this.o.now() + wait < this.o.keeper.heldUntil(this.key); wait *= 2) {
      await (this.o.sleep ?? unrefSleep)(wait);
      reply = await send();
      resent += 1;
    }
    this.o.keeper.remove(this.key);
    // A resent end that finds the turn done (its first send landed, its answer lost) reads 'lost'.
    if (reply !== 'ok' && !(resent > 0 && reply === 'lost')) this.o.log.warn('lease.finish_failed', { key: this.key, token: this.token, reply, resent });
    else if (resent > 0) this.o.log.info('lease.finish_resent', { key: this.key, token: this.token, resent });
  }

  /**
   * The turn failed: handed back for another run after a backoff, or
   * dead-lettered. (Not p-retry: the next run may be another copy's, so the
   * schedule lives in the store, decided by the release script.) Resolves with what the store did; `retryInMs` when a
   * retry is due.
   */
  async fail(failure: TurnFailure & { retryAfterMs?: number }): Promise<{ reply: ReleaseReply; retryInMs?: number }> {
    if (this.#ended || this.#lost) return { reply: 'lost' };
    this.#ended = true;
    this.o.keeper.remove(this.key);
    this.abort('failed');
    const line = this.o.line?.('dead', { reason: failure.reason, attempts: this.attempts });
    if (failure.kind === 'permanent') {
      const reply = await this.#restoredFor(() => this.o.store.deadLetter(this.key, this.token, failure.reason, line));
      return { reply: reply === 'ok' ? 'dead' : reply };
    }
    // A closed window is waited out, not backed off: the rate-limit layer knows when it reopens.
    const backoff = failure.free ? this.o.retry.firstDelayMs : retryDelayMs(this.o.retry, this.attempts);
    // A model API's `retry-after` is the least wait before the next run.
    const delayMs = Math.max(backoff, Math.ceil(failure.retryAfterMs ?? 0));
    const reply = await this.#restoredFor(() =>
      this.o.store.release(this.key, this.token, {
        delayMs,
        reason: failure.reason,
        ambiguous: failure.ambiguous,
        free: failure.free === true,
        policy: this.o.retry,
        ...(line ? { turn: line } : {}),
      }),
    );
    return reply === 'retry' ? { reply, retryInMs: delayMs } : { reply };
  }

  /** A turn's end that finds its record forgotten: the record written again, then the end sent again (once). */
  async #restoredFor<R extends string>(send: () => Promise<R | 'missing'>): Promise<R | 'lost'> {
    let reply = await send();
    if (reply === 'missing' && (await this.#rewrite()) === 'ok') reply = await send();
    return reply === 'missing' ? 'lost' : reply;
  }
}
