/**
 * A delivery's trace id, the same on every copy and every run: derived from
 * its claim key (its team and Slack event id, or its trigger id), so the
 * live run, Slack's retry, a takeover, a handed-back retry and a kept
 * delivery drained late all join one trace. Pure.
 */
import { createHash } from 'node:crypto';

/** The first 16 bytes of SHA-256(`key`), as OpenTelemetry writes a trace id (32 hex digits). */
export function traceIdOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}
