/**
 * The copy's tracer: a no-op until `start()`, and for good without OTEL_*
 * settings. With them, `start()` loads OpenTelemetry (lib/telemetry/otel.ts,
 * by dynamic import: a copy without OTEL_* loads none of it) and every call
 * from then on is traced. Never throws into the delivery path: a collector
 * that is down loses spans, not turns.
 */
import type { Logger } from '../log/index.js';
import type { TelemetrySettings } from './settings.js';
import { NO_TRACER, type ClaimTrace, type DeliveryTracer, type RunStart, type RunTrace } from './tracer.js';

export interface CopyIdentity {
  instance: string;
  role: string;
  version: string;
}

export class Telemetry implements DeliveryTracer {
  #inner: DeliveryTracer = NO_TRACER;
  readonly #settings: TelemetrySettings | null;
  readonly #copy: CopyIdentity;
  readonly #log: Logger;

  constructor(settings: TelemetrySettings | null, copy: CopyIdentity, log: Logger) {
    this.#settings = settings;
    this.#copy = copy;
    this.#log = log;
  }

  /** Whether spans are exported (OTEL_* set). */
  get enabled(): boolean {
    return this.#settings !== null;
  }

  /** Loads the exporter when configured; a failure to load is logged and leaves the no-op. */
  async start(): Promise<void> {
    const settings = this.#settings;
    if (!settings || this.#inner !== NO_TRACER) return;
    try {
      const { otelTracer } = await import('./otel.js');
      this.#inner = otelTracer(settings, this.#copy, this.#log);
      this.#log.info('telemetry.started', { origin: new URL(settings.url).origin, serviceName: settings.serviceName, delayMs: settings.delayMs });
    } catch (error) {
      this.#log.error('telemetry.unavailable', { error });
    }
  }

  claim(c: ClaimTrace): void {
    this.#inner.claim(c);
  }

  run(r: RunStart): RunTrace {
    return this.#inner.run(r);
  }

  wrapFetch(inner: typeof fetch): typeof fetch {
    if (!this.#settings) return inner;
    // Wrapped at build time, traced from start(): the inner tracer is read at each call.
    return (input, init) => this.#inner.wrapFetch(inner)(input, init);
  }

  async shutdown(): Promise<void> {
    const inner = this.#inner;
    this.#inner = NO_TRACER;
    await inner.shutdown().catch((error: unknown) => this.#log.warn('telemetry.shutdown_failed', { error }));
  }
}
