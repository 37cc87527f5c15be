/**
 * How long a Node HTTP server (a copy, `npm run edge`) waits for a request.
 * Node's defaults let a connection trickling one byte every few seconds hold
 * a socket for 300 s (`requestTimeout`) and its headers for 60 s
 * (`headersTimeout`), checked only every 30 s. Slack sends a whole request
 * at once, so:
 *
 *   headers:  5,000 ms from the request's first byte
 *   request:  headers + the body limit at 64 KiB/s (1 MiB: 16,000 ms) = 21,000 ms
 *   checked:  every min(1,000 ms, headers / 2), so a timeout fires near its time
 *
 * A request past either gets Node's 408 and its connection is closed.
 */
import type { ServerOptions } from 'node:http';

/** @default 5000 */
export const HEADERS_TIMEOUT_MS = 5_000;
/** The slowest body worth waiting for: a whole body limit at this rate. */
export const MIN_BODY_BYTES_PER_S = 64 * 1024;

export interface ServerTimeouts {
  /** From a request's first byte to its last header. @default 5000 */
  headersTimeoutMs: number;
  /** From a request's first byte to its last body byte. @default headers + the body limit at 64 KiB/s */
  requestTimeoutMs: number;
}

export function serverTimeouts(maxBodyBytes: number, options: Partial<ServerTimeouts> = {}): ServerTimeouts {
  const headersTimeoutMs = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const bodyMs = Math.ceil((maxBodyBytes / MIN_BODY_BYTES_PER_S) * 1000);
  // Node refuses a request timeout under the headers timeout.
  const requestTimeoutMs = Math.max(headersTimeoutMs, options.requestTimeoutMs ?? headersTimeoutMs + bodyMs);
  return { headersTimeoutMs, requestTimeoutMs };
}

/** The `createServer` options that enforce `timeouts`. */
export function serverOptions(timeouts: ServerTimeouts): ServerOptions {
  return {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(timeouts.headersTimeoutMs / 2))),
  };
}
