/**
 * The health route's truth, from what this copy already knows: its
 * lifecycle, what the store's own traffic last said (no ping per probe, so a
 * peer or the edge watching costs no store command), its turns and its
 * event loop. A hung Redis never slows `GET /slack/health`.
 */
import type { Pingable, StoreKind } from '../store/index.js';
import type { Role } from '../store/index.js';
import type { AlertView } from '../alert/index.js';
import type { ScheduleView } from '../schedule/index.js';

export type Lifecycle = 'starting' | 'serving' | 'draining';

export interface StoreView {
  kind: StoreKind;
  /** null until the store has answered or failed once. */
  ok: boolean | null;
  checked_at: string | null;
  reason?: string;
}

export interface TurnsView {
  running: number;
  waiting: number;
  /** Leases this copy keeps alive: what a peer would have to take over if it died now. */
  leases: number;
  /** Turns past their deadline that have not returned (a bot ignoring ctx.signal); their slots are freed. */
  past_deadline?: number;
  /** Failed turns kept here because the store would not take their retry; run again once it answers. */
  waiting_on_store?: number;
}

export interface HealthBody {
  status: 'starting' | 'ok' | 'degraded' | 'draining';
  role: Role;
  instance: string;
  version: string;
  uptime_s: number;
  store: StoreView;
  turns: TurnsView;
  /** This process's event-loop delay since the last report, in ms. */
  loop: { p99_ms: number; max_ms: number };
  /** Live claims that failed open since this copy started: turns that ran with no fence (the owner is told, lib/notice). */
  claims_failed_open: number;
  /** The edge's inbox as this copy's last drain or look saw it (no command of its own); absent without the shared store. */
  inbox?: InboxView;
  /** The ids of the store keys this copy opens with, its sealing key first (lib/store/seal.ts's storeKeyId); absent without one. */
  store_key_ids?: readonly string[];
  /** AUTOHUB_ALERT_URL's origin and when an alert last got through or was given up; absent without it. */
  alert?: AlertView;
  /** The bot's schedules as this copy knows them: next slot, last run and by which copy (from memory: no command). Absent without any. */
  schedules?: ScheduleView[];
}

/** The edge's inbox in the health body: what the drainer last read, aged to now. */
export interface InboxView {
  /** Deliveries kept, waiting for a copy to run them. */
  size: number;
  oldest_at: string | null;
  /** The oldest entry's age now, in seconds. */
  oldest_age_s: number | null;
  /** Entries dropped for their age (AUTOHUB_INBOX_MAX_HOURS), ever. */
  expired: number;
  /** Deliveries the edge refused because the inbox was full (AUTOHUB_INBOX_MAX), ever. */
  refused: number;
  /** When the store was read; null when it has not been yet. */
  checked_at: string | null;
}

/** What the drainer's last look saw (lib/inbox's InboxStats). */
export interface InboxSeen {
  size: number;
  oldestAt: number | undefined;
  expired?: number;
  refused?: number;
  checkedAt?: number;
}

/** Pure: the health body's inbox, from what was last seen and `now`; before any look, size 0 and never checked. */
export function inboxView(seen: InboxSeen | undefined, now: number): InboxView {
  if (!seen) return { size: 0, oldest_at: null, oldest_age_s: null, expired: 0, refused: 0, checked_at: null };
  const oldest = seen.size > 0 ? seen.oldestAt : undefined;
  return {
    size: seen.size,
    oldest_at: oldest === undefined ? null : new Date(oldest).toISOString(),
    oldest_age_s: oldest === undefined ? null : Math.max(0, Math.floor((now - oldest) / 1000)),
    expired: seen.expired ?? 0,
    refused: seen.refused ?? 0,
    checked_at: seen.checkedAt === undefined ? null : new Date(seen.checkedAt).toISOString(),
  };
}

/** Pure: the status code and body for a lifecycle and store view. */
export function healthReport(input: {
  lifecycle: Lifecycle;
  role: Role;
  instance: string;
  version: string;
  startedAt: number;
  now: number;
  store: StoreView;
  turns: TurnsView;
  loop: { p99Ms: number; maxMs: number };
  /** @default 0 */
  failedOpen?: number;
  /** The edge's inbox, when this copy drains one. @default absent */
  inbox?: InboxView | undefined;
  storeKeyIds?: readonly string[] | undefined;
  /** The alert URL's record, when one is set. @default absent */
  alert?: AlertView | undefined;
  /** The bot's schedules. @default absent */
  schedules?: ScheduleView[] | undefined;
}): { status: 200 | 503; body: HealthBody } {
  const { lifecycle, store } = input;
  const status = lifecycle === 'starting' ? 'starting' : lifecycle === 'draining' ? 'draining' : store.ok === false ? 'degraded' : 'ok';
  return {
    // A degraded store still serves (claims fail open), so it stays 200.
    status: lifecycle === 'serving' ? 200 : 503,
    body: {
      status,
      role: input.role,
      instance: input.instance,
      version: input.version,
      uptime_s: Math.max(0, Math.floor((input.now - input.startedAt) / 1000)),
      store,
      turns: input.turns,
      loop: { p99_ms: input.loop.p99Ms, max_ms: input.loop.maxMs },
      claims_failed_open: input.failedOpen ?? 0,
      ...(input.inbox ? { inbox: input.inbox } : {}),
      ...(input.storeKeyIds ? { store_key_ids: input.storeKeyIds } : {}),
      ...(input.alert ? { alert: input.alert } : {}),
      ...(input.schedules && input.schedules.length > 0 ? { schedules: input.schedules } : {}),
    },
  };
}

export interface HealthMonitorOptions {
  store: Pingable;
  role: Role;
  instance: string;
  version: string;
  /** @default Date.now */
  now?: (() => number) | undefined;
  /** This copy's turns, for the body. */
  turns?: () => TurnsView;
  /** Event-loop delay since the last call. */
  loop?: () => { p99Ms: number; maxMs: number };
  /**
   * The edge's inbox as the drainer last saw it (its `last`), or undefined before its first look; omit the
   * option where no inbox is drained. Read from memory: the health route still sends no store command.
   * @default none
   */
  inbox?: (() => InboxSeen | undefined) | undefined;
  /** The ids of the store keys this copy opens with (the health body shows them to the token's holder). @default none */
  storeKeyIds?: readonly string[] | undefined;
  /** The alert sender's record (lib/alert), from memory; omit without AUTOHUB_ALERT_URL. @default none */
  alert?: (() => AlertView) | undefined;
  /** The bot's schedules (lib/schedule's Scheduler `view`), from memory. @default none */
  schedules?: (() => ScheduleView[]) | undefined;
}

export class HealthMonitor {
  #lifecycle: Lifecycle = 'starting';
  readonly startedAt: number;
  #pinged: StoreView | undefined;
  #loop = { p99Ms: 0, maxMs: 0 };
  #failedOpen = 0;
  readonly #options: HealthMonitorOptions;
  readonly #now: () => number;

  constructor(options: HealthMonitorOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.startedAt = this.#now();
  }

  /** What the store said last: its own traffic, or the start-up ping. */
  get store(): StoreView {
    const { store } = this.#options;
    const seen = store.observed();
    if (seen.at === null) return this.#pinged ?? { kind: store.kind, ok: null, checked_at: null };
    return {
      kind: store.kind,
      ok: seen.ok,
      checked_at: new Date(seen.at).toISOString(),
      ...(seen.reason ? { reason: seen.reason } : {}),
    };
  }

  /** Ask the store once (at start-up); the store bounds its own ping. */
  async refresh(): Promise<void> {
    const health = await this.#options.store.ping().catch((error: unknown) => ({ ok: false, reason: String(error) }));
    this.#pinged = {
      kind: this.#options.store.kind,
      ok: health.ok,
      checked_at: new Date(this.#now()).toISOString(),
      ...(health.reason ? { reason: health.reason } : {}),
    };
  }

  /** Starting (until the receiver listens), serving, then draining (from the receiver's stop on); set by the receiver alone. */
  get lifecycle(): Lifecycle {
    return this.#lifecycle;
  }

  /** The receiver listens: health turns 200. */
  serving(): void {
    this.#lifecycle = 'serving';
  }

  /** The receiver stops: health turns 503 at once. */
  draining(): void {
    this.#lifecycle = 'draining';
  }

  /** A live claim failed open (the receiver calls this). */
  countFailOpen(): void {
    this.#failedOpen += 1;
  }

  /** Refresh the event-loop figure (the heartbeat calls this). */
  sampleLoop(): { p99Ms: number; maxMs: number } {
    this.#loop = this.#options.loop?.() ?? this.#loop;
    return this.#loop;
  }

  /** The answer now. */
  report(): ReturnType<typeof healthReport> {
    return healthReport({
      lifecycle: this.#lifecycle,
      role: this.#options.role,
      instance: this.#options.instance,
      version: this.#options.version,
      startedAt: this.startedAt,
      now: this.#now(),
      store: this.store,
      turns: this.#options.turns?.() ?? { running: 0, waiting: 0, leases: 0 },
      loop: this.#loop,
      failedOpen: this.#failedOpen,
      storeKeyIds: this.#options.storeKeyIds,
      inbox: this.#options.inbox ? inboxView(this.#options.inbox(), this.#now()) : undefined,
      alert: this.#options.alert?.(),
      schedules: this.#options.schedules?.(),
    });
  }
}
