/**
 * The deadlines of parked turns' questions, watched by each copy: a question
 * past its deadline resumes its turn with `{ timedOut: true }`, once across
 * the copies (the same claim a click takes: whichever comes first).
 *
 * The copy reads the list of deadlines (`ASK_DEADLINES_KEY`, one command) at
 * start and every `everyMs` (10 minutes: 144 commands a day a copy), and
 * knows at once the questions it posts itself (`noted`); one timer to the
 * earliest deadline it knows. No command per second, none per question waiting.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import type { Lists, Records } from '../store/index.js';
import type { After } from '../schedule/index.js';
import { readQuestion, resolveQuestion } from './answer.js';
import { ASK_DEADLINES_KEY, MAX_PARKED } from './question.js';

/** Past this, a question's record has lapsed (its deadline and a day): nothing left to time out. */
const FORGET_AFTER_MS = 24 * 3_600_000;

export interface QuestionWatchOptions {
  store: Pick<Records, 'read'> & Pick<Lists, 'range'>;
  client: WebClient;
  inject: (envelope: Record<string, unknown>) => Promise<string>;
  log: Logger;
  now?: () => number;
  after?: After;
  /** @default 600000 */
  everyMs?: number;
}

const realAfter: After = (ms, fn) => {
  const timer = setTimeout(fn, Math.min(ms, 2 ** 31 - 1));
  timer.unref?.();
  return () => clearTimeout(timer);
};

export class QuestionWatch {
  readonly #deadlines = new Map<string, number>();
  readonly #done = new Set<string>();
  readonly #now: () => number;
  readonly #after: After;
  #cancel: (() => void) | undefined;
  #running = false;
  #nextRead = 0;

  constructor(private readonly o: QuestionWatchOptions) {
    this.#now = o.now ?? Date.now;
    this.#after = o.after ?? realAfter;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#tick();
  }

  stop(): void {
    this.#running = false;
    this.#cancel?.();
  }

  /** A question this copy just posted: watched from now, without waiting for the next read. */
  noted(qid: string, deadline: number): void {
    if (this.#done.has(qid)) return;
    this.#deadlines.set(qid, deadline);
    this.#arm();
  }

  /** How many questions this copy watches now. */
  get size(): number {
    return this.#deadlines.size;
  }

  async #tick(): Promise<void> {
    if (!this.#running) return;
    const now = this.#now();
    if (now >= this.#nextRead) {
      this.#nextRead = now + (this.o.everyMs ?? 600_000);
      const entries = await this.o.store.range(ASK_DEADLINES_KEY, MAX_PARKED).catch(() => []);
      for (const entry of entries) {
        const [at, qid] = entry.split('|');
        const deadline = Number(at);
        if (!qid || !Number.isFinite(deadline) || this.#done.has(qid) || now - deadline > FORGET_AFTER_MS) continue;
        this.#deadlines.set(qid, deadline);
      }
    }
    for (const [qid, deadline] of this.#deadlines) {
      if (deadline > this.#now()) continue;
      this.#deadlines.delete(qid);
      this.#done.add(qid);
      await this.#timeOut(qid);
    }
    this.#arm();
  }

  async #timeOut(qid: string): Promise<void> {
    const record = await readQuestion(this.o.store, qid).catch(() => undefined);
    if (record === undefined) {
      // The store did not answer: tried again at the next read.
      this.#done.delete(qid);
      return;
    }
    if (record === null) return;
    const outcome = await resolveQuestion({ record, answer: { timedOut: true }, client: this.o.client, inject: this.o.inject, log: this.o.log });
    if (outcome === 'unsure') this.#done.delete(qid);
  }

  #arm(): void {
    this.#cancel?.();
    if (!this.#running) return;
    const now = this.#now();
    let due = this.#nextRead;
    for (const deadline of this.#deadlines.values()) due = Math.min(due, deadline);
    this.#cancel = this.#after(Math.max(0, due - now), () => void this.#tick());
  }
}
