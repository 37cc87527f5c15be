/**
 * The one place a fail-open claim or a failed store command is reported.
 * A claim that failed open is `claim.fail_open`, each one (that delivery may
 * be answered twice). A store that stops answering is one `store.unreachable`
 * line naming its host and what failed, again once a minute while it lasts
 * (with the failures meanwhile), and `store.reachable` when it answers again
 * (lib/store/outage.ts); each failed command is `store.write_failed` at debug
 * level only. An error tracker can be plugged in by passing another reporter.
 */
import type { Logger } from '../log/index.js';
import { outageOnAnswer, outageOnFault, OUTAGE_LINE_EVERY_MS, type Outage, type OutageLine } from './outage.js';

export interface StoreFault {
  /** What was being done: a claim, a bookkeeping write, a health probe. */
  op: 'claim' | 'note' | 'ping' | 'window' | 'lease' | 'read';
  reason: string;
  key?: string;
  elapsedMs?: number;
}

/** Told of every fault; `answered`, when given, of every command the store answered (it ends an outage). */
export type StoreReporter = ((fault: StoreFault) => void) & { answered?: () => void };

export interface LogReporterOptions {
  /** The store's host, named in `store.unreachable` (never its token). */
  host?: string | undefined;
  /** @default Date.now */
  now?: () => number;
  /** @default OUTAGE_LINE_EVERY_MS (a minute) */
  everyMs?: number;
}

export function logReporter(log: Logger, options: LogReporterOptions = {}): StoreReporter {
  const now = options.now ?? Date.now;
  const everyMs = options.everyMs ?? OUTAGE_LINE_EVERY_MS;
  const host = options.host === undefined ? {} : { host: options.host };
  let outage: Outage | null = null;
  const say = (line: OutageLine | undefined) => {
    if (!line) return;
    if (line.event === 'store.reachable') log.info(line.event, { ...host, ...line.fields });
    else log.error(line.event, { ...host, ...line.fields });
  };
  const report: StoreReporter = (fault) => {
    if (fault.op === 'claim') log.warn('claim.fail_open', { ...fault });
    else log.debug('store.write_failed', { ...fault });
    const next = outageOnFault(outage, fault, now(), everyMs);
    outage = next.state;
    say(next.line);
  };
  report.answered = () => {
    if (!outage) return;
    const next = outageOnAnswer(outage, now());
    outage = next.state;
    say(next.line);
  };
  return report;
}
