/**
 * Telling the owner of a leg that keeps failing, or has recovered: by the
 * owner line (a DM to each AUTOHUB_OWNER, retried as a dead letter's
 * announcement is, and the alert URL), so nobody gets two.
 */
import type { OwnerLine } from './announce.js';

export function tellOwners(line: OwnerLine, text: string, what: { leg: string; kind: string }): Promise<void> {
  return line.tell(text, `leg_${what.kind}`, { sent: 'owner.told', failed: 'owner.tell_failed' }, what);
}
