/**
 * Which dead letters a bulk `replay` or `drop` takes: `--all`, or those dead
 * within `--since DURATION`, whose reason holds `--cause TEXT`, or both. Pure:
 * the time is passed in.
 */
import { UsageError } from '../../lib/errors/index.js';
import type { DeadLetter } from '../../lib/store/index.js';

export interface DeadLetterFilter {
  /** Every dead letter. */
  all: boolean;
  /** Dead at most this long ago, in ms. */
  sinceMs?: number | undefined;
  /** Part of the reason, any case (`not_in_channel`, `timeout`). */
  cause?: string | undefined;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Dead letters are kept 7 days: a longer window finds nothing more. */
const MAX_SINCE_MS = 7 * UNITS.d!;

/** `90s`, `30m`, `2h`, `7d` in ms; a UsageError naming `--since` (and ending with `usage`, when given) for anything else. */
export function parseDuration(text: string, usage?: string): number {
  const match = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  const ms = match ? Number(match[1]) * UNITS[match[2]!]! : Number.NaN;
  if (!(ms > 0)) throw new UsageError(`--since takes a duration such as 90s, 30m, 2h or 7d, not ${JSON.stringify(text)}${usage ? `; ${usage}` : ''}`);
  return Math.min(ms, MAX_SINCE_MS);
}

/** The dead letters the filter takes, oldest first (the order they died in). */
export function selectDead(entries: readonly DeadLetter[], filter: DeadLetterFilter, now: number): DeadLetter[] {
  const cause = filter.cause?.toLowerCase();
  // listDead gives them newest first: reversed, two that died in the same millisecond keep their order too.
  return [...entries]
    .reverse()
    .filter((d) => filter.all || filter.sinceMs === undefined || now - Date.parse(d.at) <= filter.sinceMs)
    .filter((d) => filter.all || cause === undefined || d.reason.toLowerCase().includes(cause))
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** The filter as the person wrote it, for the summary: `--since 2h --cause "timeout"`. */
export function describeFilter(filter: DeadLetterFilter, words: { since?: string | undefined }): string {
  if (filter.all) return '--all';
  return [words.since === undefined ? '' : `--since ${words.since}`, filter.cause === undefined ? '' : `--cause ${JSON.stringify(filter.cause)}`]
    .filter(Boolean)
    .join(' ');
}
