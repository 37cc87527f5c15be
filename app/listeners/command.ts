/**
 * `/autohub`: an ephemeral answer saying which copy answered and how its
 * store is. `/autohub status`: the status page, read from the shared store.
 */
import type { App } from '@slack/bolt';
import type { ClaimStore } from '../../lib/store/index.js';
import type { HealthMonitor } from '../../lib/receiver/index.js';
import { readSnapshot, statusBlocks } from '../../lib/status/index.js';

export function describeCopy(health: HealthMonitor): string {
  const { body } = health.report();
  const store =
    body.store.ok === null ? 'not checked yet' : body.store.ok ? 'reachable' : `unreachable (${body.store.reason ?? 'no answer'})`;
  return [
    `*${body.role}* copy \`${body.instance}\` (v${body.version}) answered, up ${body.uptime_s}s.`,
    `Claim store: ${body.store.kind}, ${store}.`,
  ].join('\n');
}

/** The status page's blocks, as this copy sees the shared store now. */
export async function statusPage(health: HealthMonitor, store: ClaimStore, now = Date.now()) {
  const { body } = health.report();
  const snapshot = await readSnapshot(store, { role: body.role, instance: body.instance }, body.store.ok);
  return statusBlocks(snapshot, now);
}

export function registerCommand(app: App, health: HealthMonitor, store: ClaimStore): void {
  app.command('/autohub', async ({ ack, command }) => {
    if (command.text.trim().toLowerCase() === 'status') {
      await ack({ response_type: 'ephemeral', text: 'autohub status', blocks: (await statusPage(health, store)) as never });
      return;
    }
    await ack({ response_type: 'ephemeral', text: describeCopy(health) });
  });
}
