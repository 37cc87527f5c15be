/** Reading the status page's figures back from the shared store. */
import type { ClaimStore } from '../store/index.js';
import type { RefusalRecord } from '../ratelimit/refusal-log.js';
import { STATUS_KEYS, type CopyRecord, type TurnRecord } from './records.js';

export interface StatusSnapshot {
  /** The copy rendering the page. */
  answering: { role: string; instance: string };
  hub: CopyRecord | null;
  cloud: CopyRecord | null;
  storeKind: string;
  storeOk: boolean | null;
  turns: TurnRecord[];
  failoverTimes: string[];
  refusals: RefusalRecord[];
  cloudLastServed: string | null;
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

export async function readSnapshot(
  store: ClaimStore,
  answering: StatusSnapshot['answering'],
  storeOk: boolean | null,
): Promise<StatusSnapshot> {
  const [hub, cloud, turns, failovers, refusals, cloudLastServed] = await Promise.all([
    store.read(STATUS_KEYS.copy('hub')),
    store.read(STATUS_KEYS.copy('cloud')),
    store.range(STATUS_KEYS.turns, 10),
    store.range(STATUS_KEYS.failovers, 500),
    store.range(STATUS_KEYS.refusals, 200),
    store.read(STATUS_KEYS.cloudLastServed),
  ]);
  return {
    answering,
    hub: hub ? (parse<CopyRecord>([hub])[0] ?? null) : null,
    cloud: cloud ? (parse<CopyRecord>([cloud])[0] ?? null) : null,
    storeKind: store.kind,
    storeOk,
    turns: parse<TurnRecord>(turns),
    failoverTimes: parse<{ at: string }>(failovers).map((f) => f.at),
    refusals: parse<RefusalRecord>(refusals),
    cloudLastServed: cloudLastServed ?? null,
  };
}
