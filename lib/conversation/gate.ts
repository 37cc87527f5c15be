/**
 * One turn at a time per conversation, across the copies. A turn's claim
 * takes its place in the thread's order in the shared store (CLAIM_SCRIPT;
 * a first look places a turn whose claim did not); before it runs, it looks
 * at that order (one command) and runs only when no earlier turn of the
 * thread is live (claimed, posting, or waiting for a retry) on any copy.
 * A turn alone in its thread's order when it is claimed has that first look
 * made by its claim, in the same command (ClaimOptions.firstLook): it runs
 * without a look here. A takeover, a retry, a turn whose claim failed open
 * or found another turn of the thread there looks as any other.
 *
 *   - The order lives in the store, so a copy that dies while a follow-up
 *     waits loses neither: both leases lapse, a takeover runs them, and each
 *     keeps its place (a place, once taken, is kept: `ZADD NX`).
 *   - A waiting turn holds no slot of the runner and keeps its lease alive.
 *     It looks again the moment a turn of its conversation ends on this
 *     copy, else every `pollMs` (one command a look: the cost of waiting
 *     for a turn on the other copy).
 *   - Bounded: past `maxWaiting` turns waiting in one thread, the oldest
 *     waiting one is answered with a short note (SKIPPED_NOTE, by the turn's
 *     handle: TurnHandle.answerSkipped), never dropped.
 *   - A store that cannot answer is asked again; after `unsureLooks` looks
 *     in a row without an answer the turn runs (fail open, as a claim does).
 *   - `interrupt` (the bot's concurrency): a newer message marks the running
 *     turn interrupted in the store; that turn's owner, on whichever copy,
 *     sees the mark at its next look (`watch`, every `watchMs`; at once
 *     when the newer message reached the same copy) and stops it.
 *
 * Cost when the thread is idle: none (the claim's first look admits the
 * turn); one command a look otherwise; with `interrupt`, one more every
 * `watchMs` while a turn runs.
 */
import type { Logger } from '../log/index.js';
import { STORE_LIMITS, type Conversations } from '../store/index.js';
import type { Concurrency } from './concurrency.js';

export type Admission = 'run' | 'skipped' | 'gone';

export interface ConversationGateOptions {
  store: Pick<Conversations, 'enterConversation'> & Partial<Pick<Conversations, 'conversationInterrupted'>>;
  log: Logger;
  /** The bot's concurrency: `interrupt` marks the running turn when a newer message comes. @default 'queue' */
  mode?: Concurrency;
  /** With `interrupt`: the longest a running turn goes without looking for a mark (one command a look). @default 1000 */
  watchMs?: number;
  /** Turns that may wait in one conversation. @default STORE_LIMITS.conversationWaiting (5) */
  maxWaiting?: number;
  /** The longest a waiting turn goes without looking again. @default 1000 */
  pollMs?: number;
  /** Looks in a row the store does not answer before the turn runs anyway. @default 3 */
  unsureLooks?: number;
  now?: () => number;
}

export class ConversationGate {
  readonly #waiters = new Map<string, Set<() => void>>();
  /** Running turns watched for an interrupt, by conversation: each looks now when a newer message marks one here. */
  readonly #watched = new Map<string, Set<() => void>>();
  readonly #max: number;
  readonly #pollMs: number;
  readonly #unsure: number;
  readonly #now: () => number;

  constructor(private readonly o: ConversationGateOptions) {
    this.#max = o.maxWaiting ?? STORE_LIMITS.conversationWaiting;
    this.#pollMs = o.pollMs ?? 1000;
    this.#unsure = o.unsureLooks ?? 3;
    this.#now = o.now ?? Date.now;
  }

  /** Whether a newer message interrupts the running turn (the bot's concurrency is `interrupt`). */
  get interrupts(): boolean {
    return this.o.mode === 'interrupt';
  }

  /** Turns waiting here now. */
  get waiting(): number {
    let n = 0;
    for (const set of this.#waiters.values()) n += set.size;
    return n;
  }

  /**
   * Wait until the turn `turnKey` may run in `conversation`: `run`, `skipped`
   * (its handle answers it with SKIPPED_NOTE), or `gone` (`signal` aborted:
   * this copy no longer holds the turn, or is stopping). `admitted`: the
   * turn's claim made its first look and it went (ClaimOutcome's
   * `admitted`): `run` at once, no look. `failedOpen`: the turn's claim
   * found the store away, so a look it does not answer runs the turn at
   * once (fail open, fail fast: one store attempt, not `unsureLooks`).
   */
  async admit(
    conversation: string,
    turnKey: string,
    signal: AbortSignal,
    fields: Record<string, unknown> = {},
    options: { admitted?: boolean; failedOpen?: boolean } = {},
  ): Promise<Admission> {
    const { log } = this.o;
    if (options.admitted === true) return signal.aborted ? 'gone' : 'run';
    const started = this.#now();
    let unanswered = 0;
    const unsure = options.failedOpen ? 1 : this.#unsure;
    for (let looks = 1; ; looks++) {
      if (signal.aborted) return 'gone';
      const place = await this.o.store.enterConversation(conversation, turnKey, this.#max, this.interrupts);
      if (signal.aborted) return 'gone';
      if (place?.skippedNow) log.info('conversation.bounded', { ...fields, skipped: place.skippedNow, maxWaiting: this.interrupts ? 0 : this.#max });
      if (place?.interrupting && looks === 1) {
        log.info('conversation.interrupting', { ...fields, running: place.interrupting });
        // The running turn may be this copy's: it looks now, not at its next watch.
        for (const look of this.#watched.get(conversation) ?? []) look();
      }
      if (place === undefined) {
        unanswered += 1;
        if (unanswered >= unsure) {
          log.warn('conversation.unsure', { ...fields, looks, detail: 'the store did not answer: the turn runs without waiting its turn' });
          return 'run';
        }
      } else {
        unanswered = 0;
        if (place.kind === 'go') {
          if (looks > 1) log.info('conversation.waited', { ...fields, looks, ms: this.#now() - started });
          return 'run';
        }
        if (place.kind === 'skipped') {
          log.info('conversation.skipped', { ...fields, looks, ms: this.#now() - started });
          return 'skipped';
        }
        if (looks === 1) log.info('conversation.waiting', { ...fields, ahead: place.ahead });
      }
      await this.#nap(conversation, signal);
    }
  }

  /**
   * With `interrupt`: while the turn `turnKey` runs, look for a newer
   * message's mark every `watchMs` (and at once when one reached this copy);
   * `onInterrupt` is called once, when it is seen. Returns the stop, called
   * when the turn ends. Without `interrupt` (or a store that cannot tell), nothing.
   */
  watch(conversation: string, turnKey: string, onInterrupt: () => void, fields: Record<string, unknown> = {}): () => void {
    const read = this.o.store.conversationInterrupted?.bind(this.o.store);
    if (!this.interrupts || !read) return () => {};
    const set = this.#watched.get(conversation) ?? new Set<() => void>();
    this.#watched.set(conversation, set);
    let stopped = false;
    let busy = false;
    /** A wake while a look was out: that look may have been answered before the mark, so one more follows it. */
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = () => {
      stopped = true;
      clearTimeout(timer);
      set.delete(look);
      if (set.size === 0 && this.#watched.get(conversation) === set) this.#watched.delete(conversation);
    };
    const next = () => {
      if (stopped) return;
      timer = setTimeout(look, this.o.watchMs ?? 1000);
      timer.unref?.();
    };
    const look = () => {
      if (stopped) return;
      if (busy) {
        again = true;
        return;
      }
      clearTimeout(timer);
      busy = true;
      // A store that cannot answer this look: the next one asks again (the turn is not stopped on a guess).
      void read(conversation, turnKey)
        .catch(() => undefined)
        .then((marked) => {
          busy = false;
          if (stopped) return;
          if (marked === true) {
            this.o.log.info('conversation.interrupted', fields);
            stop();
            onInterrupt();
            return;
          }
          if (again) {
            again = false;
            look();
          } else next();
        });
    };
    set.add(look);
    next();
    return stop;
  }

  /** A turn of `conversation` ended here: its waiters look again now. */
  ended(conversation: string): void {
    for (const wake of this.#waiters.get(conversation) ?? []) wake();
  }

  /** Until a turn of the conversation ends here, `pollMs` passes, or `signal` aborts. */
  #nap(conversation: string, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const set = this.#waiters.get(conversation) ?? new Set<() => void>();
      this.#waiters.set(conversation, set);
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0 && this.#waiters.get(conversation) === set) this.#waiters.delete(conversation);
        resolve();
      };
      const timer = setTimeout(done, this.#pollMs);
      signal.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }
}
