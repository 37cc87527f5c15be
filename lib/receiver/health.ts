/**
 * The health route's truth. The store is probed in the background and the
 * answer uses the last result, so a hung Redis never slows `GET
 * /slack/health` (the edge's probe has a short timeout of its own).
 */
import type { ClaimStore, StoreHealth, StoreKind } from '../store/index.js';
import type { Role } from '../config/index.js';

export type Lifecycle = 'starting' | 'serving' | 'draining';

export interface StoreView {
  kind: StoreKind;
  /** null until the first probe has answered. */
  ok: boolean | null;
  checked_at: string | null;
  reason?: string;
}

export interface HealthBody {
  status: 'starting' | 'ok' | 'degraded' | 'draining';
  role: Role;
  instance: string;
  version: string;
  uptime_s: number;
  store: StoreView;
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
}): { status: 200 | 503; body: HealthBody } {
  const { lifecycle, store } = input;
  const status =
    lifecycle === 'starting' ? 'starting' : lifecycle === 'draining' ? 'draining' : store.ok === false ? 'degraded' : 'ok';
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
    },
  };
}

export interface HealthMonitorOptions {
  store: ClaimStore;
  role: Role;
  instance: string;
  version: string;
  /** Re-probe the store when the last answer is older than this. @default 5000 */
  refreshMs?: number;
  /** @default Date.now */
  now?: () => number;
  /** Told of every store probe's result (for the status page). */
  onProbe?: (report: ReturnType<typeof healthReport>) => void;
}

export class HealthMonitor {
  lifecycle: Lifecycle = 'starting';
  readonly startedAt: number;
  #store: StoreView;
  #probe: Promise<void> | undefined;
  readonly #options: HealthMonitorOptions;
  readonly #now: () => number;

  constructor(options: HealthMonitorOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.startedAt = this.#now();
    this.#store = { kind: options.store.kind, ok: null, checked_at: null };
  }

  get store(): StoreView {
    return this.#store;
  }

  /** Probe the store once (the store bounds its own ping); concurrent callers share it. */
  refresh(): Promise<void> {
    this.#probe ??= this.#options.store
      .ping()
      .catch((error: unknown): StoreHealth => ({ ok: false, reason: String(error) }))
      .then((health) => {
        this.#store = {
          kind: this.#options.store.kind,
          ok: health.ok,
          checked_at: new Date(this.#now()).toISOString(),
          ...(health.reason ? { reason: health.reason } : {}),
        };
        this.#options.onProbe?.(this.#snapshot(this.#now()));
      })
      .finally(() => {
        this.#probe = undefined;
      });
    return this.#probe;
  }

  /** The answer now; starts a background probe when the last one is stale. */
  report(): ReturnType<typeof healthReport> {
    const now = this.#now();
    const checked = this.#store.checked_at ? Date.parse(this.#store.checked_at) : -Infinity;
    if (now - checked > (this.#options.refreshMs ?? 5000)) void this.refresh();
    return this.#snapshot(now);
  }

  #snapshot(now: number): ReturnType<typeof healthReport> {
    return healthReport({
      lifecycle: this.lifecycle,
      role: this.#options.role,
      instance: this.#options.instance,
      version: this.#options.version,
      startedAt: this.startedAt,
      now,
      store: this.#store,
    });
  }
}
