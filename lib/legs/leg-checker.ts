/**
 * The legs proven continuously: every `everyMs` (jittered) one copy, the
 * holder of a lock in the shared store, sends a signed probe down each leg
 * through the edge's public URL (edge -> hub, edge -> cloud), writes one
 * short record (when each was last proven, failed checks in a row) and tells
 * the owner once when a leg has failed ALERT_AFTER checks in a row, and once
 * when it recovers.
 *
 * Why one copy checks both legs (not each its own): a copy that is down,
 * crashed or misdeployed cannot report itself, and that is the case that
 * matters. The lock outlives a period, so its holder keeps it while it lives
 * (one checker, no doubled DM) and the other copy takes over a period or two
 * after it dies.
 *
 * Cost per period: one lock command per copy, then for the holder one read,
 * two claims (the probes) and one write: 6 with two copies, about 290 a day
 * at the default 30 minutes.
 */
import type { Logger } from '../log/index.js';
import { LEGS_LOCK_KEY, STATUS_KEYS, type Records } from '../store/index.js';
import { LEGS, type LegName } from '../synthetic/index.js';
import { probeLeg } from './leg-probe.js';
import { nextLegs, noticeText, parseLegsRecord, type LegCheck, type LegNotice, type LegsRecord } from './leg-record.js';

/** The record is kept a week: a copy that has checked nothing for that long shows "never proven". */
const RECORD_TTL_SECONDS = 7 * 24 * 3600;
/** One probe's fuse: the edge answers within its 2.8 s budget, plus the way there and back. */
const PROBE_TIMEOUT_MS = 5_000;
/** The lock's life past a period: both probes (in parallel) and two store round trips fit in it. */
const CHECK_MARGIN_MS = PROBE_TIMEOUT_MS + 5_000;

export interface LegCheckerOptions {
  edgeUrl: string;
  signingSecret: string;
  everyMs: number;
  store: Pick<Records, 'lock' | 'unlock' | 'read' | 'note'>;
  /** This copy, for the lock and the record; unique to the process. */
  holder: string;
  /** Tell the owner (a DM); resolves when tried. */
  tell: (text: string, notice: LegNotice) => Promise<void>;
  log: Logger;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default Date.now */
  now?: () => number;
  /** A factor on the period, so copies started together do not check together. @default random in [0.9, 1.1] */
  jitter?: () => number;
  /** Unique ids for the probes. @default crypto.randomUUID */
  id?: () => string;
}

export class LegChecker {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;
  #running: Promise<LegsRecord | undefined> | undefined;
  readonly #now: () => number;

  constructor(private readonly o: LegCheckerOptions) {
    this.#now = o.now ?? Date.now;
  }

  start(): void {
    this.#stopped = false;
    this.#plan();
  }

  /** No more checks; the lock is let go, so the other copy checks from its next period. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    await this.o.store.unlock(LEGS_LOCK_KEY, this.o.holder);
  }

  #plan(): void {
    if (this.#stopped) return;
    const jitter = this.o.jitter ?? (() => 0.9 + Math.random() * 0.2);
    this.#timer = setTimeout(() => void this.check().finally(() => this.#plan()), this.o.everyMs * jitter());
    this.#timer.unref?.();
  }

  /**
   * One check, when this copy holds the lock. Resolves with the record
   * written, or undefined when another copy checks this period or the store
   * could not answer (nothing is counted then: a store fault is not a leg's).
   */
  check(): Promise<LegsRecord | undefined> {
    this.#running ??= this.#check().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #check(): Promise<LegsRecord | undefined> {
    const o = this.o;
    const ttlSeconds = Math.ceil((o.everyMs * 1.2 + CHECK_MARGIN_MS) / 1000);
    if ((await o.store.lock(LEGS_LOCK_KEY, ttlSeconds, o.holder)) !== true) return undefined;
    const raw = await o.store.read(STATUS_KEYS.legs);
    if (raw === undefined) return undefined;
    const id = o.id ?? (() => crypto.randomUUID());
    const results = await Promise.all(
      LEGS.map((leg) =>
        probeLeg(leg, {
          edgeUrl: o.edgeUrl,
          signingSecret: o.signingSecret,
          eventId: `legs-${leg}-${id()}`,
          now: this.#now(),
          timeoutMs: PROBE_TIMEOUT_MS,
          fetch: o.fetch ?? fetch,
        }),
      ),
    );
    const checks = Object.fromEntries(LEGS.map((leg, i) => [leg, results[i]!])) as Record<LegName, LegCheck>;
    const { record, notices } = nextLegs(parseLegsRecord(raw), checks, new Date(this.#now()).toISOString(), o.holder);
    // Written before the owner is told: a copy that dies in between tells nobody, rather than a second copy telling again.
    await o.store.note(STATUS_KEYS.legs, JSON.stringify(record), RECORD_TTL_SECONDS);
    const fields = Object.fromEntries(LEGS.map((leg) => [leg, checks[leg].ok ? 'proven' : `failed ${record[leg].failures}x: ${record[leg].lastFailure}`]));
    if (LEGS.every((leg) => checks[leg].ok)) o.log.debug('legs.checked', fields);
    else o.log.warn('legs.failing', fields);
    for (const notice of notices) {
      o.log.warn(notice.kind === 'failing' ? 'legs.leg_down' : 'legs.leg_recovered', { leg: notice.leg, failures: notice.before.failures });
      await o.tell(noticeText(notice), notice);
    }
    return record;
  }
}
