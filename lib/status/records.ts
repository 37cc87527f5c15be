/**
 * What the status page is made of, as both copies write it to the shared
 * store, so either copy shows the same page.
 */
import type { ClaimStore } from '../claim/index.js';
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

/** Detached writes; each is bounded by the store and never throws. */
export function statusRecorder(store: ClaimStore) {
  return {
    turn(record: TurnRecord): void {
      void store.push(STATUS_KEYS.turns, JSON.stringify(record), 10);
      if (record.role === 'cloud') {
        void store.note(STATUS_KEYS.cloudLastServed, record.at, 30 * DAY_S);
        void store.push(STATUS_KEYS.failovers, JSON.stringify({ at: record.at, instance: record.instance }), 500);
      }
    },
    refusal(record: RefusalRecord): void {
      void store.push(STATUS_KEYS.refusals, JSON.stringify(record), 200);
    },
    copy(role: Role, record: CopyRecord): void {
      void store.note(STATUS_KEYS.copy(role), JSON.stringify(record), 7 * DAY_S);
    },
  };
}

export type StatusRecorder = ReturnType<typeof statusRecorder>;
