/** The status page's blocks, as one copy sees the shared store now: for `/autohub status` and the App Home. */
import type { AlertView } from '../alert/index.js';
import type { InboxView } from '../liveness/index.js';
import type { ScheduleView } from '../schedule/index.js';
import { statusBlocks } from './blocks.js';
import { readSnapshot, type PeerView, type SnapshotStore } from './snapshot.js';

export async function statusPage(
  store: SnapshotStore,
  answering: { role: string; instance: string },
  storeOk: boolean | null,
  now: number = Date.now(),
  peer?: PeerView | undefined,
  inbox?: InboxView | undefined,
  alert?: AlertView | undefined,
  schedules?: ScheduleView[] | undefined,
) {
  const snapshot = await readSnapshot(store, answering, storeOk, peer);
  return statusBlocks({ ...snapshot, ...(inbox ? { inbox } : {}), ...(alert ? { alert } : {}), ...(schedules ? { schedules } : {}) }, now);
}

/** The page for the copy whose health report this is, with what its peer watch (if any) sees of the other copy now. */
export function pageFor(
  health: {
    report(): { body: { role: string; instance: string; store: { ok: boolean | null }; inbox?: InboxView; alert?: AlertView; schedules?: ScheduleView[] } };
  },
  store: SnapshotStore,
  peer?: () => PeerView | undefined,
) {
  const { body } = health.report();
  return statusPage(store, { role: body.role, instance: body.instance }, body.store.ok, Date.now(), peer?.(), body.inbox, body.alert, body.schedules);
}

/** Whether `user` may see the status page: everyone when no owner is set (AUTOHUB_OWNER). */
export function mayReadStatus(owners: readonly string[], user: string | undefined): boolean {
  return owners.length === 0 || (user !== undefined && owners.includes(user));
}
