/** Reading the status page's figures back from the shared store. */
import { NOTICE_CAUSES, type NoticeRecord } from '../notice/index.js';
import type { RefusalRecord } from '../ratelimit/index.js';
import { noticeStatusKey, STATUS_KEYS, STORE_LIMITS, type DeadLetter, type DeadLetters, type Lists, type Records } from '../store/index.js';
import type { CopyRecord, TurnRecord } from './records.js';
import { parseLegsRecord, type LegsRecord } from '../legs/index.js';
import type { InboxView } from '../liveness/index.js';
import type { AlertView } from '../alert/index.js';
import type { ScheduleView } from '../schedule/index.js';

/** The other copy as the answering copy's peer watch sees it: `down` since `downSince` (epoch ms). */
export interface PeerView {
  role: 'hub' | 'cloud';
  state: 'unknown' | 'up' | 'down';
  downSince: number | null;
}

export interface StatusSnapshot {
  /** The copy rendering the page. */
  answering: { role: string; instance: string };
  /** Every copy that has written a heartbeat, newest first. */
  copies: CopyRecord[];
  storeKind: string;
  storeOk: boolean | null;
  turns: TurnRecord[];
  failoverTimes: string[];
  refusals: RefusalRecord[];
  cloudLastServed: string | null;
  dead: DeadLetter[];
  /** The last failover the edge reported, with its reason. */
  lastFailover?: { at: string; reason: string } | null;
  /** The last notice of each fault only the owner can fix (lib/notice), newest first. */
  notices?: NoticeRecord[];
  /** When each leg was last proven through the edge (lib/legs); null when never checked. */
  legs?: LegsRecord | null;
  /** What the answering copy's own peer watch (AUTOHUB_PEER_URL) says of the other role, now: it sees a dead copy within seconds. */
  peer?: PeerView | undefined;
  /** The edge's inbox as the answering copy's drainer last saw it (from its health body: no store command); absent without one. */
  inbox?: InboxView | undefined;
  /** The answering copy's alert URL (AUTOHUB_ALERT_URL), as its health body says; absent without one. */
  alert?: AlertView | undefined;
  /** The bot's schedules as the answering copy knows them (from its health body: no store command); absent without any. */
  schedules?: ScheduleView[] | undefined;
  /** The last catch-up sweep. */
  sweep?: { at: string; from: string; to: string; found: number; answered: number; conversations: number } | null;
}

function parse<T>(values: string[]): T[] {
  return values.flatMap((v) => {
    try {
      return [JSON.parse(v) as T];
    } catch {
      return [];
    }
  });
}

export type SnapshotStore = Pick<Records, 'read' | 'readHash'> & Pick<Lists, 'range'> & Pick<DeadLetters, 'listDead'> & { kind: string };

export async function readSnapshot(
  store: SnapshotStore,
  answering: StatusSnapshot['answering'],
  storeOk: boolean | null,
  peer?: PeerView | undefined,
): Promise<StatusSnapshot> {
  const [copies, turns, failovers, refusals, cloudLastServed, dead, lastFailover, sweep, notices, legs] = await Promise.all([
    store.readHash(STATUS_KEYS.copies),
    store.range(STATUS_KEYS.turns, STORE_LIMITS.turnLines),
    store.range(STATUS_KEYS.failovers, STORE_LIMITS.failoverLines),
    store.range(STATUS_KEYS.refusals, STORE_LIMITS.refusalLines),
    store.read(STATUS_KEYS.cloudLastServed),
    store.listDead(10),
    store.read(STATUS_KEYS.lastFailover),
    store.read(STATUS_KEYS.sweep),
    Promise.all(NOTICE_CAUSES.map((cause) => store.read(noticeStatusKey(cause)))),
    store.read(STATUS_KEYS.legs),
  ]);
  return {
    answering,
    ...(peer ? { peer } : {}),
    copies: parse<CopyRecord>(Object.values(copies ?? {})).sort((a, b) => Date.parse(b.at) - Date.parse(a.at)),
    storeKind: store.kind,
    storeOk,
    turns: parse<TurnRecord>(turns),
    failoverTimes: failovers,
    refusals: parse<RefusalRecord>(refusals),
    cloudLastServed: cloudLastServed ?? null,
    dead: dead ?? [],
    lastFailover: lastFailover ? (parse<{ at: string; reason: string }>([lastFailover])[0] ?? null) : null,
    legs: parseLegsRecord(legs) ?? null,
    sweep: sweep ? (parse<NonNullable<StatusSnapshot['sweep']>>([sweep])[0] ?? null) : null,
    notices: parse<NoticeRecord>(notices.filter((n): n is string => typeof n === 'string')).sort((a, b) => Date.parse(b.at) - Date.parse(a.at)),
  };
}
