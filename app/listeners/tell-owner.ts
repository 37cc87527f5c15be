/**
 * Telling the owner of a leg that keeps failing, or has recovered: a DM to
 * each AUTOHUB_OWNER, retried as a dead letter's announcement is (a refusal
 * that cannot have landed only), so nobody gets two.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../lib/log/index.js';
import { dmOwners } from './announce.js';

export function tellOwners(client: WebClient, owners: readonly string[], text: string, log: Logger, what: Record<string, unknown>): Promise<void> {
  return dmOwners(client, owners, text, log, { sent: 'owner.told', failed: 'owner.tell_failed' }, what);
}
