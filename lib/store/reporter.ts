/**
 * The one place a fail-open claim or a failed bookkeeping write is reported.
 * It logs `claim.fail_open` / `store.write_failed`; an error tracker can be
 * plugged in by passing another reporter.
 */
import type { Logger } from '../log/index.js';

export interface StoreFault {
  /** What was being done: a claim, a bookkeeping write, a health probe. */
  op: 'claim' | 'note' | 'ping' | 'window' | 'lease' | 'read';
  reason: string;
  key?: string;
  elapsedMs?: number;
}

export type StoreReporter = (fault: StoreFault) => void;

export function logReporter(log: Logger): StoreReporter {
  return (fault) => {
    const event = fault.op === 'claim' ? 'claim.fail_open' : 'store.write_failed';
    log.warn(event, { ...fault });
  };
}
