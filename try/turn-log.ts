/**
 * What the copies' log lines say of a message's turn, for `npm run try`: its
 * retries (each `turn.failed` handed back for another run) and its end as a
 * dead letter (`turn.dead_letter`), with why. Read from every line a copy
 * logs (the harness's onLog); a line that is not JSON is no turn's.
 */
export interface TurnRetry {
  instance: string;
  reason: string;
  retryInMs: number | undefined;
}

export class TurnLog {
  readonly #retries = new Map<string, TurnRetry[]>();
  readonly #dead = new Map<string, string>();

  /** One line a copy logged. */
  take(instance: string, line: string): void {
    let entry: { event?: unknown; eventId?: unknown; reason?: unknown; outcome?: unknown; retryInMs?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return;
    }
    if (typeof entry.eventId !== 'string') return;
    const reason = typeof entry.reason === 'string' ? entry.reason : 'no reason logged';
    if (entry.event === 'turn.failed' && entry.outcome === 'retry') {
      const retryInMs = typeof entry.retryInMs === 'number' ? entry.retryInMs : undefined;
      this.#retries.set(entry.eventId, [...(this.#retries.get(entry.eventId) ?? []), { instance, reason, retryInMs }]);
    } else if (entry.event === 'turn.dead_letter' && !this.#dead.has(entry.eventId)) {
      this.#dead.set(entry.eventId, reason);
    }
  }

  retries(eventId: string): readonly TurnRetry[] {
    return this.#retries.get(eventId) ?? [];
  }

  /** Why the turn is a dead letter; undefined while it is not one. */
  dead(eventId: string): string | undefined {
    return this.#dead.get(eventId);
  }
}

/** The retries as the summary says them: `retried 2 times (http 529 (APIError); model: overloaded_error)`, or nothing. */
export function retriesPhrase(retries: readonly TurnRetry[]): string {
  if (retries.length === 0) return '';
  const reasons = [...new Set(retries.map((r) => r.reason))].join('; ');
  return `retried ${retries.length === 1 ? 'once' : `${retries.length} times`} (${reasons})`;
}
