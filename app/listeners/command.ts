/**
 * `/autohub`: an ephemeral answer saying which copy answered and how its
 * store is. `/autohub status`: the status page, read from the shared store;
 * with AUTOHUB_OWNER set, only for the owners.
 */
import type { App } from '@slack/bolt';
import type { HealthMonitor } from '../../lib/receiver/index.js';
import { mayReadStatus, pageFor, type SnapshotStore } from '../../lib/status/index.js';

export function describeCopy(health: HealthMonitor): string {
  const { body } = health.report();
  const store =
    body.store.ok === null ? 'not checked yet' : body.store.ok ? 'reachable' : `unreachable (${body.store.reason ?? 'no answer'})`;
  return [
    `*${body.role}* copy \`${body.instance}\` (v${body.version}) answered, up ${body.uptime_s}s.`,
    `Claim store: ${body.store.kind}, ${store}.`,
  ].join('\n');
}

export function registerCommand(app: App, health: HealthMonitor, store: SnapshotStore, owners: readonly string[]): void {
  app.command('/autohub', async ({ ack, command }) => {
    if (command.text.trim().toLowerCase() === 'status' && mayReadStatus(owners, command.user_id)) {
      await ack({ response_type: 'ephemeral', text: 'autohub status', blocks: (await pageFor(health, store)) as never });
      return;
    }
    await ack({ response_type: 'ephemeral', text: describeCopy(health) });
  });
}
