/**
 * One turn at a time per conversation, across the copies. Before a turn of
 * a thread runs, it takes its place in the thread's order in the shared
 * store (one command) and runs only when no earlier turn of the thread is
 * live (claimed, posting, or waiting for a retry) on any copy.
 *
 *   - The order lives in the store, so a copy that dies while a follow-up
 *     waits loses neither: both leases lapse, a takeover runs them, and each
 *     keeps its place (a place, once taken, is kept: `ZADD NX`).
 *   - A waiting turn holds no slot of the runner and keeps its lease alive.
 *     It looks again the moment a turn of its conversation ends on this
 *     copy, else every `pollMs` (one command a look: the cost of waiting
 *     for a turn on the other copy).
 *   - Bounded: past `maxWaiting` turns waiting in one thread, the oldest
 *     waiting one is answered with a short note (SKIPPED_NOTE), never dropped.
 *   - A store that cannot answer is asked again; after `unsureLooks` looks
 *     in a row without an answer the turn runs (fail open, as a claim does).
 *
 * Cost when the thread is idle: one store command per mention.
 */
import type { Logger } from '../log/index.js';
import { STORE_LIMITS, type Conversations } from '../store/index.js';

/** The answer of a turn skipped past the bound: it is that turn's reply (final), so a takeover does not post it again. */
export const SKIPPED_NOTE = '_(You wrote again before I got to this one, so I am answering your newer message instead.)_';

export type Admission = 'run' | 'skipped' | 'gone';

export interface ConversationGateOptions {
  store: Pick<Conversations, 'enterConversation'>;
  log: Logger;
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

  /** Turns waiting here now. */
  get waiting(): number {
    let n = 0;
    for (const set of this.#waiters.values()) n += set.size;
    return n;
  }

  /**
   * Wait until the turn `turnKey` may run in `conversation`: `run`, `skipped`
   * (answer it with SKIPPED_NOTE), or `gone` (`signal` aborted: this copy no
   * longer holds the turn, or is stopping).
   */
  async admit(
    conversation: string,
    turnKey: string,
    signal: AbortSignal,
    fields: Record<string, unknown> = {},
    unsureLooks = this.#unsure,
  ): Promise<Admission> {
    const { log } = this.o;
    const started = this.#now();
    let unanswered = 0;
    for (let looks = 1; ; looks++) {
      if (signal.aborted) return 'gone';
      const place = await this.o.store.enterConversation(conversation, turnKey, this.#max);
      if (signal.aborted) return 'gone';
      if (place?.skippedNow) log.info('conversation.bounded', { ...fields, skipped: place.skippedNow, maxWaiting: this.#max });
      if (place === undefined) {
        unanswered += 1;
        if (unanswered >= unsureLooks) {
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
