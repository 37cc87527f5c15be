/**
 * The standard OpenTelemetry variables a copy reads, once, at start-up
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/
 * and .../protocol/exporter/). Traces only, over OTLP/HTTP with JSON bodies.
 * A bad value stops start-up with one line naming it.
 */
import { ConfigError } from '../errors/index.js';
import { readInt, readRaw, type Env } from '../env/index.js';

export interface TelemetrySettings {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  url: string;
  /** OTEL_EXPORTER_OTLP_HEADERS, then OTEL_EXPORTER_OTLP_TRACES_HEADERS over them (`key=value,...`, values URL-decoded). */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME. @default 'autohub' */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES (`key=value,...`). */
  resource: Record<string, string>;
  /** OTEL_BSP_SCHEDULE_DELAY: spans wait at most this long to be sent. @default 1000 (a copy that dies mid-turn has sent its claim) */
  delayMs: number;
  /** OTEL_EXPORTER_OTLP_TRACES_TIMEOUT or OTEL_EXPORTER_OTLP_TIMEOUT: one export's bound. @default 10000 */
  timeoutMs: number;
}

/** `key=value` pairs separated by commas, values percent-decoded (the W3C Baggage form the spec uses). */
function readPairs(env: Env, name: string): Record<string, string> {
  const raw = readRaw(env, name);
  if (raw === undefined) return {};
  const out: Record<string, string> = {};
  for (const part of raw.split(',')) {
    if (part.trim() === '') continue;
    const at = part.indexOf('=');
    const key = at > 0 ? part.slice(0, at).trim() : '';
    if (key === '') throw new ConfigError(name, 'key=value pairs separated by commas', `${raw.length} characters`);
    try {
      out[key] = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      throw new ConfigError(name, 'key=value pairs separated by commas, values percent-encoded', `${raw.length} characters`);
    }
  }
  return out;
}

function readEndpoint(env: Env): string | undefined {
  const traces = readRaw(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = readRaw(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const name = traces !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const value = traces ?? base;
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, "the collector's http(s) URL, e.g. http://localhost:4318", `${value.length} characters, not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(name, "the collector's http(s) URL, e.g. http://localhost:4318", `a ${url.protocol} URL`);
  // The signal's own endpoint is used as given; the base gets the signal's path (the spec's rule).
  return traces !== undefined ? url.toString() : `${url.toString().replace(/\/+$/, '')}/v1/traces`;
}

/** The settings, or null: no endpoint, OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none. */
export function readTelemetry(env: Env): TelemetrySettings | null {
  if (readRaw(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporter = readRaw(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return null;
  if (exporter !== undefined && exporter !== 'otlp') throw new ConfigError('OTEL_TRACES_EXPORTER', 'otlp or none', exporter);
  const url = readEndpoint(env);
  if (url === undefined) return null;
  const protocol = readRaw(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? readRaw(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  // OTLP/HTTP receivers take JSON and protobuf on the same path: http/protobuf is served as JSON. gRPC is another port and client.
  if (protocol !== undefined && protocol !== 'http/json' && protocol !== 'http/protobuf') {
    throw new ConfigError(
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'http/json (or http/protobuf, sent as JSON to the same OTLP/HTTP path); grpc is not supported',
      protocol,
    );
  }
  const timeout = readRaw(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT' : 'OTEL_EXPORTER_OTLP_TIMEOUT';
  return {
    url,
    headers: { ...readPairs(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...readPairs(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') },
    serviceName: readRaw(env, 'OTEL_SERVICE_NAME') ?? 'autohub',
    resource: readPairs(env, 'OTEL_RESOURCE_ATTRIBUTES'),
    delayMs: readInt(env, 'OTEL_BSP_SCHEDULE_DELAY', 1_000, { min: 0, max: 60_000 }),
    timeoutMs: readInt(env, timeout, 10_000, { min: 100, max: 120_000 }),
  };
}
