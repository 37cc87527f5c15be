/**
 * What the copies logged during one scenario, for its section of the report:
 * how many lines, how many of each event, and the first few as logged (the
 * whole log goes to a file beside the report). Before, the copies' error lines
 * went to the drill's terminal, between its rows. Pure.
 */

/** Lines of a scenario's log shown in its section of the report; the rest are in the log file. */
export const SHOWN_LINES = 20;

export interface CopyLog {
  lines: number;
  /** Each event (a JSON line's `event` and `level`; `not JSON` for other lines) and how often, most often first. */
  events: Array<{ event: string; level: string; count: number }>;
  /** The first `SHOWN_LINES` lines, each after the instance that logged it. */
  first: string[];
}

export class CopyLogBook {
  #lines = 0;
  readonly #events = new Map<string, { event: string; level: string; count: number }>();
  readonly #first: string[] = [];

  /** One line `instance` logged (a copy's JSON line, or the drill's own note). */
  take(instance: string, line: string): void {
    this.#lines += 1;
    if (this.#first.length < SHOWN_LINES) this.#first.push(`${instance} ${line}`);
    let event = 'not JSON';
    let level = '-';
    try {
      const fields = JSON.parse(line) as { event?: unknown; level?: unknown };
      if (typeof fields.event === 'string') event = fields.event;
      if (typeof fields.level === 'string') level = fields.level;
    } catch {
      // A line of the drill's own, or a copy's that is not a log line (a crash's stack): counted as it is.
    }
    const key = `${level} ${event}`;
    const seen = this.#events.get(key) ?? { event, level, count: 0 };
    seen.count += 1;
    this.#events.set(key, seen);
  }

  summary(): CopyLog {
    return {
      lines: this.#lines,
      events: [...this.#events.values()].sort((a, b) => b.count - a.count || a.event.localeCompare(b.event)),
      first: [...this.#first],
    };
  }
}
