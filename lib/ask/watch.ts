/**
 * The deadlines of parked turns' questions, watched by each copy: a question
 * past its deadline resumes its turn with `{ timedOut: true }`, once across
 * the copies (the same claim a click takes: whichever comes first).
 *
 * Lazy: a copy reads the list of deadlines (`ASK_DEADLINES_KEY`, one
 * command) once at start, and again only when it may have missed one: when
 * the other copy stops answering (`peerLost`: the hub parked a question and
 * died, its deadline is this copy's now) or the edge sends a delivery here
 * because the other copy failed (`failover`, at most once an `everyMs`).
 * It knows at once the questions it posts itself (`noted`) and forgets those
 * answered here (`answered`). While it knows of a question still waiting, it
 * reads again every `everyMs` (10 minutes) and keeps one timer to the
 * earliest deadline; knowing of none, it holds no timer and sends nothing:
 * a bot that never asks costs one command at start, none a day after.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import type { Lists, Records } from '../store/index.js';
import type { After } from '../schedule/index.js';
import { readQuestion, resolveQuestion } from './answer.js';
import { ASK_DEADLINES_KEY, MAX_PARKED } from './question.js';

/** Past this, a question's record has lapsed (its deadline and a day): nothing left to time out. */
const FORGET_AFTER_MS = 24 * 3_600_000;
/** A timeout the store did not take is tried again no sooner than this. */
const RETRY_MS = 1000;

export interface QuestionWatchOptions {
  store: Pick<Records, 'read'> & Pick<Lists, 'range'>;
  client: WebClient;
  inject: (envelope: Record<string, unknown>) => Promise<string>;
  log: Logger;
  now?: () => number;
  after?: After;
  /** @default 600000 */
  everyMs?: number;
  /**
   * Settles when the clicks kept for this copy while it was down have been taken (the start drain of the edge's
   * inbox): until then no question is timed out, so a click made before its deadline, kept by the edge while
   * both copies were down, is not beaten by the deadline that passed meanwhile. @default settled
   */
  ready?: Promise<unknown>;
  /**
   * Whether deliveries the edge kept are still being run here (a drain's clicks waiting behind its mentions):
   * no question is timed out meanwhile, for the same reason; asked again a second on. @default never
   */
  keptRunning?: () => boolean;
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
  /** When the last read was made (a `failover` wake reads at most once an `everyMs`). */
  #lastRead = Number.NEGATIVE_INFINITY;
  #reading = false;
  #readFailed = false;
  #ready = false;

  constructor(private readonly o: QuestionWatchOptions) {
    this.#now = o.now ?? Date.now;
    this.#after = o.after ?? realAfter;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#tick(true);
  }

  /**
   * The other copy may have parked questions this copy does not know of (it stopped answering, or the edge
   * failed it over): one read now. `throttled` (a failover, told once a delivery): not within `everyMs` of the last.
   */
  look(throttled = false): void {
    if (!this.#running || this.#reading) return;
    if (throttled && this.#now() - this.#lastRead < this.#everyMs) return;
    void this.#tick(true);
  }

  /** A question answered on this copy (a click took it): nothing left to time out here. */
  answered(qid: string): void {
    this.#done.add(qid);
    if (this.#deadlines.delete(qid)) this.#arm();
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

  get #everyMs(): number {
    return this.o.everyMs ?? 600_000;
  }

  /** `read`: read the list now, whatever the schedule (start, a look); otherwise only when a read is due and a question known. */
  async #tick(read = false): Promise<void> {
    if (!this.#running) return;
    const now = this.#now();
    if (read || ((this.#deadlines.size > 0 || this.#readFailed) && now >= this.#nextRead)) {
      this.#nextRead = now + this.#everyMs;
      this.#lastRead = now;
      this.#reading = true;
      const entries = await this.o.store.range(ASK_DEADLINES_KEY, MAX_PARKED).then(
        (list) => {
          this.#readFailed = false;
          return list;
        },
        () => {
          // The store did not answer: read again a gap on, even knowing of no question.
          this.#readFailed = true;
          return [] as string[];
        },
      );
      this.#reading = false;
      for (const entry of entries) {
        const [at, qid] = entry.split('|');
        const deadline = Number(at);
        if (!qid || !Number.isFinite(deadline) || this.#done.has(qid) || now - deadline > FORGET_AFTER_MS) continue;
        this.#deadlines.set(qid, deadline);
      }
    }
    // The kept clicks first (a click made in time, kept by the edge, wins over a deadline that passed while down).
    if (!this.#ready) {
      await this.o.ready?.catch(() => {});
      this.#ready = true;
      if (!this.#running) return;
    }
    const unsettled: string[] = [];
    // A drain's kept deliveries still running (a click made in time may be among them): the timeouts wait a second more.
    const waitForKept = this.o.keptRunning?.() === true;
    for (const [qid, deadline] of [...this.#deadlines]) {
      if (deadline > this.#now()) continue;
      if (waitForKept) {
        this.#deadlines.set(qid, this.#now() + RETRY_MS);
        continue;
      }
      this.#deadlines.delete(qid);
      this.#done.add(qid);
      if (!(await this.#timeOut(qid))) unsettled.push(qid);
    }
    // Not sure it was taken (the store did not answer): tried again at the next read's time.
    for (const qid of unsettled) this.#deadlines.set(qid, Math.max(this.#nextRead, this.#now() + RETRY_MS));
    this.#arm();
  }

  /** Whether the timeout is settled (resumed, answered already, or nothing left to resume). */
  async #timeOut(qid: string): Promise<boolean> {
    const record = await readQuestion(this.o.store, qid).catch(() => undefined);
    if (record === undefined) {
      this.#done.delete(qid);
      return false;
    }
    if (record === null) return true;
    const outcome = await resolveQuestion({ record, answer: { timedOut: true }, client: this.o.client, inject: this.o.inject, log: this.o.log });
    if (outcome !== 'unsure') return true;
    this.#done.delete(qid);
    return false;
  }

  #arm(): void {
    this.#cancel?.();
    if (!this.#running) return;
    // Knowing of no question waiting, and the last read answered: no timer, no command until told of one.
    if (this.#deadlines.size === 0 && !this.#readFailed) return;
    const now = this.#now();
    let due = this.#nextRead;
    for (const deadline of this.#deadlines.values()) due = Math.min(due, deadline);
    this.#cancel = this.#after(Math.max(0, due - now), () => void this.#tick());
  }
}
