/**
 * What the status page is made of, as both copies write it to the shared
 * store, so either copy shows the same page.
 */
import type { ClaimStore } from '../store/index.js';
import type { Role } from '../config/index.js';
import type { RefusalRecord } from '../ratelimit/refusal-log.js';

export const STATUS_KEYS = {
  turns: 'autohub:status:turns',
  failovers: 'autohub:status:failovers',
  refusals: 'autohub:status:refusals',
  cloudLastServed: 'autohub:status:cloud_last_served',
  copy: (role: Role) => `autohub:status:copy:${role}`,
} as const;

export interface TurnRecord {
  at: string;
  role: Role;
  instance: string;
  ackMs: number;
  claim: string;
}

export interface CopyRecord {
  at: string;
  instance: string;
  status: string;
  storeOk: boolean | null;
}

const DAY_S = 24 * 60 * 60;

/**
 * Detached writes, each bounded by the store and never thrown. List entries
 * are gathered for `flushMs` and written in one round trip per list, so a
 * busy copy spends one store request a second on its status page, not one
 * per turn.
 */
export function statusRecorder(store: ClaimStore, options: { flushMs?: number } = {}) {
  const lists = new Map<string, { values: string[]; max: number }>();
  const notes = new Map<string, { value: string; ttlSeconds: number }>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = async (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    const writes = [
      ...[...lists].map(([key, { values, max }]) => store.push(key, values, max)),
      ...[...notes].map(([key, { value, ttlSeconds }]) => store.note(key, value, ttlSeconds)),
    ];
    lists.clear();
    notes.clear();
    await Promise.all(writes);
  };
  const later = () => {
    timer ??= setTimeout(() => void flush(), options.flushMs ?? 1000);
    timer.unref?.();
  };
  const push = (key: string, value: string, max: number) => {
    const list = lists.get(key) ?? { values: [], max };
    list.values.push(value);
    lists.set(key, list);
    later();
  };

  return {
    turn(record: TurnRecord): void {
      push(STATUS_KEYS.turns, JSON.stringify(record), 10);
      if (record.role === 'cloud') {
        notes.set(STATUS_KEYS.cloudLastServed, { value: record.at, ttlSeconds: 30 * DAY_S });
        push(STATUS_KEYS.failovers, JSON.stringify({ at: record.at, instance: record.instance }), 500);
      }
    },
    refusal(record: RefusalRecord): void {
      push(STATUS_KEYS.refusals, JSON.stringify(record), 200);
    },
    copy(role: Role, record: CopyRecord): void {
      notes.set(STATUS_KEYS.copy(role), { value: JSON.stringify(record), ttlSeconds: 7 * DAY_S });
      later();
    },
    /** Write what is gathered now (on shutdown, and in tests). */
    flush,
  };
}

export type StatusRecorder = ReturnType<typeof statusRecorder>;
