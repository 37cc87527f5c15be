/**
 * The standard OTEL_* variables as a copy reads them, the trace id every
 * copy derives for a delivery, and the route a run's span names: pure.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors/index.js';
import { readTelemetry, runStartOf, traceIdOf } from '../../lib/telemetry/index.js';

describe('readTelemetry', () => {
  it('is off without an endpoint, with OTEL_SDK_DISABLED=true, and with OTEL_TRACES_EXPORTER=none', () => {
    expect(readTelemetry({})).toBeNull();
    expect(readTelemetry({ OTEL_SERVICE_NAME: 'x' })).toBeNull();
    expect(readTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(readTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
  });

  it('adds /v1/traces to the base endpoint, takes the traces endpoint as given, and reads the headers, name and resource', () => {
    expect(readTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://api.honeycomb.io/' })).toEqual({
      url: 'https://api.honeycomb.io/v1/traces',
      headers: {},
      serviceName: 'autohub',
      resource: {},
      delayMs: 1000,
      timeoutMs: 10000,
    });
    expect(
      readTelemetry({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom/path',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc%3D%3D, x-other=1',
        OTEL_SERVICE_NAME: 'my-bot',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod',
        OTEL_BSP_SCHEDULE_DELAY: '500',
      }),
    ).toMatchObject({
      url: 'http://c:4318/custom/path',
      headers: { 'x-honeycomb-team': 'abc==', 'x-other': '1' },
      serviceName: 'my-bot',
      resource: { 'deployment.environment': 'prod' },
      delayMs: 500,
    });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318/' }, /^OTEL_EXPORTER_OTLP_ENDPOINT is invalid: expected the collector's http\(s\) URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc-host' }, /^OTEL_EXPORTER_OTLP_ENDPOINT is invalid: .*received "9 characters, not a URL"$/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /^OTEL_EXPORTER_OTLP_PROTOCOL is invalid: .*grpc is not supported/],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: '=novalue' },
      /^OTEL_EXPORTER_OTLP_HEADERS is invalid: expected key=value pairs/,
    ],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'zipkin' }, /^OTEL_TRACES_EXPORTER is invalid: expected otlp or none/],
  ])('%j stops start-up with one line naming the variable', (env, message) => {
    expect(() => readTelemetry(env)).toThrow(ConfigError);
    expect(() => readTelemetry(env)).toThrow(message);
  });
});

describe('the trace of a delivery', () => {
  it('is the same id on every copy and run: 32 hex digits from the claim key, different for another event', () => {
    const key = 'autohub:claim:T0AUTOHUB:event:Ev1';
    expect(traceIdOf(key)).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf(key)).toBe(traceIdOf(key));
    expect(traceIdOf('autohub:claim:T0AUTOHUB:event:Ev2')).not.toBe(traceIdOf(key));
  });

  const turn = (logFields: Record<string, unknown>, retryNum?: number) => ({
    delivery: { kind: 'event', claimKeys: ['k1', 'k2'], body: { event_id: 'Ev1', event: { text: 'hello' } } },
    logFields,
    retry: { retryNum },
  });
  it.each([
    ['a live delivery', turn({ claim: 'claimed' }, 1), { key: 'k1', route: 'live', slackRetry: 1 }],
    ['a takeover of a lapsed lease', turn({ takeover: 'posting', attempt: 2 }), { key: 'k1', route: 'posting', attempt: 2 }],
    ['a handed-back retry', turn({ takeover: 'retry', attempt: 3 }), { key: 'k1', route: 'retry', attempt: 3 }],
    ['a kept delivery drained late, or a catch-up find', turn({ catchup: true }), { key: 'k1', route: 'injected' }],
    ['a journaled turn run again', turn({ recovered: true }), { key: 'k1', route: 'recovered' }],
  ])('%s: its run is traced under its first claim key, with its route', (_, t, expected) => {
    const run = runStartOf(t);
    expect(run).toMatchObject({ ...expected, eventId: 'Ev1', kind: 'event' });
    expect(JSON.stringify(run)).not.toContain('hello');
  });
});
