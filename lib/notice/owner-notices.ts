/**
 * The thin shell around `noticeStep`: counts each occurrence of a cause,
 * and when one is due tells the owners (by the `tell` it is given: a DM) and
 * writes the notice for the status page. Of two copies only one tells, in
 * the same hour: the first takes the cause's mark in the store for an hour.
 * A store that cannot answer (claims failing open is such a cause) does not
 * silence it: this copy's own hour decides then.
 *
 * Never throws, never blocks its caller: `raise` returns at once.
 */
import type { Logger } from '../log/index.js';
import { noticeLockKey, noticeStatusKey, type Records } from '../store/index.js';
import { NOTICE_EVERY_MS, noticeStep, type NoticeCause, type NoticeState } from './decide.js';
import { noticeText } from './text.js';

/** One notice as the status page shows it. */
export interface NoticeRecord {
  cause: NoticeCause;
  /** When the owner was told. */
  at: string;
  /** Occurrences that notice covered. */
  count: number;
  detail: string;
  instance: string;
}

/** The status page keeps a notice two days. */
const NOTICE_TTL_S = 2 * 24 * 60 * 60;

export interface OwnerNoticesOptions {
  store: Pick<Records, 'lock' | 'note'>;
  instance: string;
  /** Tells every owner `text` (a DM each); resolves when done, never throws. */
  tell: (text: string, cause: NoticeCause) => Promise<void>;
  log: Logger;
  /** @default Date.now */
  now?: () => number;
  /** @default one hour */
  everyMs?: number;
}

export class OwnerNotices {
  readonly #o: OwnerNoticesOptions;
  readonly #now: () => number;
  readonly #everyMs: number;
  readonly #states = new Map<NoticeCause, NoticeState>();
  /** Notices being told now (tests wait on them). */
  readonly #pending = new Set<Promise<void>>();

  constructor(options: OwnerNoticesOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#everyMs = options.everyMs ?? NOTICE_EVERY_MS;
  }

  /** One occurrence of `cause`; `detail` says what and where, never a message's text or a secret. */
  raise(cause: NoticeCause, detail: string): void {
    const now = this.#now();
    const step = noticeStep(this.#states.get(cause), now, this.#everyMs);
    // Decided before anything is awaited: a DM that itself fails for this cause (a revoked token) cannot raise it again.
    this.#states.set(cause, step.next);
    if (!step.tell) return;
    const told = this.#tell(cause, step.count, step.first, detail, now).catch((error: unknown) => this.#o.log.warn('owner.notice_failed', { cause, error }));
    this.#pending.add(told);
    void told.finally(() => this.#pending.delete(told));
  }

  /** Resolves once every notice under way has been told or given up. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  async #tell(cause: NoticeCause, count: number, first: boolean, detail: string, now: number): Promise<void> {
    const o = this.#o;
    const mark = await o.store.lock(noticeLockKey(cause), Math.ceil(this.#everyMs / 1000), `${o.instance}:${now}`);
    if (mark === false) {
      o.log.info('owner.notice_told_elsewhere', { cause, count });
      return;
    }
    o.log.warn('owner.notice', { cause, count, detail });
    const record: NoticeRecord = { cause, at: new Date(now).toISOString(), count, detail, instance: o.instance };
    await Promise.all([o.store.note(noticeStatusKey(cause), JSON.stringify(record), NOTICE_TTL_S), o.tell(noticeText(cause, count, detail, first), cause)]);
  }
}
