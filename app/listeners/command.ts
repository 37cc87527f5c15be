/**
 * `/autohub`: an ephemeral answer. The owners (AUTOHUB_OWNER; everyone when
 * none is set) are told which copy answered, its version and how its store
 * is, and `/autohub status` shows them the status page, read from the shared
 * store. Anyone else is told only "ok" or "degraded": no instance, version or
 * store error.
 */
import type { App } from '@slack/bolt';
import type { HealthBody, HealthMonitor } from '../../lib/liveness/index.js';
import { mayReadStatus, pageFor, type PeerView, type SnapshotStore } from '../../lib/status/index.js';

export function describeCopy(health: HealthMonitor): string {
  const { body } = health.report();
  const store = body.store.ok === null ? 'not checked yet' : body.store.ok ? 'reachable' : `unreachable (${body.store.reason ?? 'no answer'})`;
  return [`*${body.role}* copy \`${body.instance}\` (v${body.version}) answered, up ${body.uptime_s}s.`, `Claim store: ${body.store.kind}, ${store}.`].join(
    '\n',
  );
}

/** What anyone but the owners is told: the copy's state word, nothing more. */
export function publicStatus(body: Pick<HealthBody, 'status'>): string {
  return `autohub: ${body.status === 'ok' ? 'ok' : 'degraded'}`;
}

export function registerCommand(app: App, health: HealthMonitor, store: SnapshotStore, owners: readonly string[], peer?: () => PeerView | undefined): void {
  app.command('/autohub', async ({ ack, command }) => {
    if (!mayReadStatus(owners, command.user_id)) {
      await ack({ response_type: 'ephemeral', text: publicStatus(health.report().body) });
      return;
    }
    if (command.text.trim().toLowerCase() === 'status') {
      await ack({ response_type: 'ephemeral', text: 'autohub status', blocks: (await pageFor(health, store, peer)) as never });
      return;
    }
    await ack({ response_type: 'ephemeral', text: describeCopy(health) });
  });
}
