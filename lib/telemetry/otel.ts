/**
 * The OpenTelemetry side, loaded only when OTEL_* asks for it (by
 * lib/telemetry/telemetry.ts's dynamic import). Spans go through a batch
 * processor that sends within OTEL_BSP_SCHEDULE_DELAY (1 s by default, where
 * the SDK's is 5 s), so a copy that dies mid-turn has sent its claim a
 * second after it was made (its unfinished run is lost with it). Each delivery's spans share the trace id
 * lib/telemetry/trace-id.ts derives from its claim key; a claim and a run
 * are roots of that trace (they may come from different copies, none of
 * which saw the other), a Web API call and the end are children of their run.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { diag, DiagLogLevel, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, RandomIdGenerator, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../log/index.js';
import type { TelemetrySettings } from './settings.js';
import type { CopyIdentity } from './telemetry.js';
import { traceIdOf } from './trace-id.js';
import type { ClaimTrace, DeliveryTracer, RunStart, RunTrace } from './tracer.js';

/** The SDK's own errors (an export refused, a collector down), logged at most once a minute. */
const DIAG_EVERY_MS = 60_000;

/** The SDK's diagnostics logger is one per process: set by the first copy that loads this (a process runs one copy, but tests run two). */
let diagSet = false;

function methodOf(input: Parameters<typeof fetch>[0]): string {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  return new URL(url).pathname.split('/').pop() || 'unknown';
}

export function otelTracer(settings: TelemetrySettings, copy: CopyIdentity, log: Logger): DeliveryTracer {
  let lastDiag = -Infinity;
  const report = (message: string) => {
    if (Date.now() - lastDiag < DIAG_EVERY_MS) return;
    lastDiag = Date.now();
    log.warn('telemetry.export_failed', { detail: message.slice(0, 300) });
  };
  if (!diagSet) {
    diagSet = true;
    // Errors only: the batch processor reports a failed export there (its warnings are the SDK's own housekeeping).
    diag.setLogger({ error: report, warn: () => {}, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.ERROR);
  }

  // A delivery's claim and runs are roots of its trace: the trace id is the one derived from its claim key.
  const random = new RandomIdGenerator();
  let nextTraceId: string | undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      ...settings.resource,
      [ATTR_SERVICE_NAME]: settings.serviceName,
      [ATTR_SERVICE_VERSION]: copy.version,
      'service.instance.id': copy.instance,
      'autohub.role': copy.role,
    }),
    idGenerator: { generateTraceId: () => nextTraceId ?? random.generateTraceId(), generateSpanId: () => random.generateSpanId() },
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: settings.url, headers: settings.headers, timeoutMillis: settings.timeoutMs }),
        scheduledDelayMillis: settings.delayMs,
        exportTimeoutMillis: settings.timeoutMs,
      }),
    ],
  });
  const tracer = provider.getTracer('autohub', copy.version);
  const copyAttributes = { 'autohub.instance': copy.instance, 'autohub.role': copy.role };
  const rootSpan = (key: string, name: string, attributes: Attributes, startTime?: number): Span => {
    nextTraceId = traceIdOf(key);
    try {
      return tracer.startSpan(
        name,
        { kind: SpanKind.INTERNAL, attributes: { ...copyAttributes, ...attributes }, ...(startTime ? { startTime } : {}) },
        ROOT_CONTEXT,
      );
    } finally {
      nextTraceId = undefined;
    }
  };
  const current = new AsyncLocalStorage<Span>();

  return {
    claim: (c: ClaimTrace) => {
      const span = rootSpan(
        c.key,
        'autohub.claim',
        { 'autohub.claim_key': c.key, 'autohub.outcome': c.outcome, ...(c.eventId ? { 'slack.event_id': c.eventId } : {}) },
        c.startedAt,
      );
      if (c.outcome === 'fail-open') span.setStatus({ code: SpanStatusCode.ERROR, message: 'the store did not answer' });
      span.end();
    },
    run: (r: RunStart): RunTrace => {
      const span = rootSpan(r.key, 'autohub.run', {
        'autohub.claim_key': r.key,
        'autohub.route': r.route,
        'autohub.kind': r.kind,
        ...(r.eventId ? { 'slack.event_id': r.eventId } : {}),
        ...(r.attempt !== undefined ? { 'autohub.attempt': r.attempt } : {}),
        ...(r.slackRetry !== undefined ? { 'slack.retry_num': r.slackRetry } : {}),
      });
      let ended = false;
      return {
        within: (fn) => current.run(span, fn),
        end: (outcome) => {
          if (ended) return;
          ended = true;
          const parent = trace.setSpan(ROOT_CONTEXT, span);
          tracer.startSpan('autohub.end', { attributes: { ...copyAttributes, 'autohub.outcome': outcome } }, parent).end();
          span.setAttribute('autohub.outcome', outcome);
          if (outcome === 'dead') span.setStatus({ code: SpanStatusCode.ERROR, message: 'dead letter' });
          span.end();
        },
      };
    },
    wrapFetch: (inner) => async (input, init) => {
      const run = current.getStore();
      if (!run) return inner(input, init);
      const method = methodOf(input);
      const span = tracer.startSpan(
        `slack ${method}`,
        { kind: SpanKind.CLIENT, attributes: { ...copyAttributes, 'slack.method': method } },
        trace.setSpan(ROOT_CONTEXT, run),
      );
      try {
        const response = await inner(input, init);
        span.setAttribute('http.response.status_code', response.status);
        // Slack says a refusal in the body (`ok: false, error`): read from a copy, the caller's body untouched.
        void response
          .clone()
          .json()
          .then((body: { ok?: unknown; error?: unknown }) => {
            if (body.ok === false && typeof body.error === 'string') {
              span.setAttribute('slack.error', body.error);
              span.setStatus({ code: SpanStatusCode.ERROR, message: body.error });
            }
          })
          .catch(() => {})
          .finally(() => span.end());
        return response;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
        span.end();
        throw error;
      }
    },
    shutdown: () => provider.shutdown(),
  };
}
