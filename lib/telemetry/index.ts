export { readTelemetry } from './settings.js';
export type { TelemetrySettings } from './settings.js';
export { Telemetry } from './telemetry.js';
export type { CopyIdentity } from './telemetry.js';
export { NO_TRACER } from './tracer.js';
export type { ClaimTrace, DeliveryTracer, RunStart, RunTrace } from './tracer.js';
export { traceIdOf } from './trace-id.js';
export { runStartOf } from './route.js';
