/**
 * What the shared store keeps of the leg checks, one short record for both
 * legs, and what one check changes in it. Pure: the previous record and the
 * check's results in, the next record and what to tell the owner out.
 */
import { LEGS, type LegName } from '../synthetic/index.js';

/** Failed checks in a row before the owner is told (once; and once again when the leg recovers). */
export const ALERT_AFTER = 3;

export interface LegState {
  /** When a probe down this leg was last answered as it must be (ISO), null: never. */
  provenAt: string | null;
  /** Failed checks in a row since then. */
  failures: number;
  /** Why the last check failed, while it fails. */
  lastFailure?: string;
  /** The owner has been told it fails (and so will be told when it recovers). */
  alerted: boolean;
}

export interface LegsRecord {
  /** When the last check ran (ISO) and which copy ran it. */
  at: string;
  by: string;
  hub: LegState;
  cloud: LegState;
}

/** One leg's check: proven, or why not. */
export type LegCheck = { ok: true } | { ok: false; reason: string };

export interface LegNotice {
  leg: LegName;
  kind: 'failing' | 'recovered';
  state: LegState;
  /** The state before this check (for the recovery's "after N failed checks"). */
  before: LegState;
}

const FRESH: LegState = { provenAt: null, failures: 0, alerted: false };

/** One leg, one check. */
export function nextLeg(before: LegState, check: LegCheck, at: string): { state: LegState; notice?: LegNotice['kind'] } {
  if (check.ok) {
    return { state: { provenAt: at, failures: 0, alerted: false }, ...(before.alerted ? { notice: 'recovered' as const } : {}) };
  }
  const failures = before.failures + 1;
  const tell = !before.alerted && failures >= ALERT_AFTER;
  return {
    state: { provenAt: before.provenAt, failures, lastFailure: check.reason.slice(0, 120), alerted: before.alerted || tell },
    ...(tell ? { notice: 'failing' as const } : {}),
  };
}

/** Both legs, one check each. */
export function nextLegs(
  previous: LegsRecord | undefined,
  checks: Record<LegName, LegCheck>,
  at: string,
  by: string,
): { record: LegsRecord; notices: LegNotice[] } {
  const record: LegsRecord = { at, by, hub: FRESH, cloud: FRESH };
  const notices: LegNotice[] = [];
  for (const leg of LEGS) {
    const before = previous?.[leg] ?? FRESH;
    const { state, notice } = nextLeg(before, checks[leg], at);
    record[leg] = state;
    if (notice) notices.push({ leg, kind: notice, state, before });
  }
  return { record, notices };
}

function legState(value: unknown): LegState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.failures !== 'number' || typeof v.alerted !== 'boolean') return undefined;
  return {
    provenAt: typeof v.provenAt === 'string' ? v.provenAt : null,
    failures: v.failures,
    alerted: v.alerted,
    ...(typeof v.lastFailure === 'string' ? { lastFailure: v.lastFailure } : {}),
  };
}

/** The stored record, or undefined when absent or unreadable (a check then starts afresh). */
export function parseLegsRecord(raw: string | null | undefined): LegsRecord | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    const hub = legState(v.hub);
    const cloud = legState(v.cloud);
    if (!hub || !cloud || typeof v.at !== 'string') return undefined;
    return { at: v.at, by: typeof v.by === 'string' ? v.by : 'unknown', hub, cloud };
  } catch {
    return undefined;
  }
}

const WHAT: Record<LegName, string> = {
  hub: 'If the Mac is asleep or offline this is expected; the cloud copy answers meanwhile.',
  cloud: 'While it fails, nothing answers when the hub is down: check the cloud copy on Railway (its logs and variables), then run `npm run verify`.',
};

/** The DM for a notice (no message text, no secrets: only what the checks saw). */
export function noticeText(n: LegNotice): string {
  const leg = `edge -> ${n.leg}`;
  if (n.kind === 'failing') {
    const since = n.state.provenAt ? `last proven ${n.state.provenAt}` : 'never proven';
    return `:warning: autohub: the ${leg} leg failed ${n.state.failures} checks in a row (${n.state.lastFailure ?? 'no answer'}); ${since}. ${WHAT[n.leg]}`;
  }
  return `:white_check_mark: autohub: the ${leg} leg answers again (proven ${n.state.provenAt}) after ${n.before.failures} failed check(s).`;
}
