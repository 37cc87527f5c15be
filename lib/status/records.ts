/**
 * What the status page is made of, as every copy writes it to the shared
 * store, so any copy shows the same page. Turn lines ride on the lease's
 * finish or dead letter, and each copy's record on the reaper's look, so
 * neither costs a command of its own; only rate-limit refusals are written
 * here, gathered for a second and sent in one round trip.
 */
import type { Role } from '../store/index.js';
import type { RefusalRecord } from '../ratelimit/index.js';
import { STATUS_KEYS, STORE_LIMITS, type Lists } from '../store/index.js';

export { STATUS_KEYS };

/** One answered or dead-lettered turn. */
export interface TurnRecord {
  at: string;
  role: Role;
  instance: string;
  outcome: 'answered' | 'dead';
  attempts: number;
  reason?: string;
  /** A streamed reply: how it ended (`streamed`, `posted` when Slack's window was closed, `completed` by a taker-over, `updated` after Slack closed it), chunks, ms. */
  stream?: { how: string; chunks: number; ms: number };
  /** Run by a copy that took the turn over. */
  takenOver?: boolean;
}

/** One copy's heartbeat, keyed by instance: replicas never overwrite each other. */
export interface CopyRecord {
  at: string;
  instance: string;
  role: Role;
  status: string;
  storeOk: boolean | null;
  /** Event-loop delay p99 since the last heartbeat, in ms. */
  loopP99Ms?: number;
  running?: number;
  waiting?: number;
  /** The longest this copy goes between heartbeats (its idle look, jitter included), ms: the status page calls it silent after two. */
  everyMs?: number;
}

export function statusRecorder(store: Pick<Lists, 'push'>, options: { flushMs?: number } = {}) {
  const refusals: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = async (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    const values = refusals.splice(0);
    await store.push(STATUS_KEYS.refusals, values, STORE_LIMITS.refusalLines);
  };

  return {
    refusal(record: RefusalRecord): void {
      refusals.push(JSON.stringify(record));
      timer ??= setTimeout(() => void flush(), options.flushMs ?? 1000);
      timer.unref?.();
    },
    /** Write what is gathered now (on shutdown, and in tests). */
    flush,
  };
}

export type StatusRecorder = ReturnType<typeof statusRecorder>;
