/**
 * What the delivery path calls to be traced: a claim, a run, each Web API
 * call within a run, and the run's end. The default does nothing, and is
 * what a copy without OTEL_* has: no OpenTelemetry module is loaded then.
 * Attributes name the delivery (its Slack event id, its claim key), the copy
 * (instance, role), the route and the outcome: never a message's text.
 */

/** One run of a turn, from its start in a slot to its end. */
export interface RunTrace {
  /** Runs `fn` with this run as the parent of the Web API calls made within it (also across awaits). */
  within<T>(fn: () => T): T;
  /** The run's end: an `autohub.end` span, and the run span closed with `outcome`. Once; later calls do nothing. */
  end(outcome: string): void;
}

export interface ClaimTrace {
  /** The delivery's first claim key (its team and event id, or its trigger id): its trace id is derived from it. */
  key: string;
  eventId?: string | undefined;
  /** `claimed`, `duplicate` or `fail-open`. */
  outcome: string;
  /** When the claim was sent (epoch ms). */
  startedAt: number;
}

export interface RunStart {
  key: string;
  eventId?: string | undefined;
  /** `live`, a takeover's state (`claimed`, `posting`, `retry`), `injected` (a catch-up find, or a kept delivery drained late), `recovered`. */
  route: string;
  /** The delivery's kind: `event`, `command`, `interactive`. */
  kind: string;
  /** Runs so far, this one included, when known (a takeover's). */
  attempt?: number | undefined;
  /** Slack's X-Slack-Retry-Num on a live delivery. */
  slackRetry?: number | undefined;
}

export interface DeliveryTracer {
  claim(c: ClaimTrace): void;
  run(r: RunStart): RunTrace;
  /** `inner`, with each call made within a run a child span of it (`slack <method>`); calls outside a run pass untouched. */
  wrapFetch(inner: typeof fetch): typeof fetch;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

const NO_RUN: RunTrace = { within: (fn) => fn(), end: () => {} };

export const NO_TRACER: DeliveryTracer = {
  claim: () => {},
  run: () => NO_RUN,
  wrapFetch: (inner) => inner,
  shutdown: async () => {},
};
