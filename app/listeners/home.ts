/** The App Home tab: the status page, published when the user opens it (only for owners when AUTOHUB_OWNER is set; anyone else sees ok or degraded). */
import type { App } from '@slack/bolt';
import type { Logger } from '../../lib/log/index.js';
import type { HealthMonitor } from '../../lib/liveness/index.js';
import { mayReadStatus, pageFor, type PeerView, type SnapshotStore } from '../../lib/status/index.js';
import { publicStatus } from './command.js';
import { turnOf } from '../turn-context.js';

export function registerHome(
  app: App,
  health: HealthMonitor,
  store: SnapshotStore,
  log: Logger,
  owners: readonly string[],
  peer?: () => PeerView | undefined,
): void {
  app.event('app_home_opened', async ({ event, client, context }) => {
    if (event.tab !== 'home') return;
    // Through the turn's fenced client: a copy that lost the turn stands down before this leaves; the runner ends it.
    const fenced = turnOf(context)?.client ?? client;
    const blocks = mayReadStatus(owners, event.user)
      ? await pageFor(health, store, peer)
      : // Anyone but the owners: the state word only, as `/autohub` says it.
        [{ type: 'section', text: { type: 'mrkdwn', text: `${publicStatus(health.report().body)}. The status page is for its owner.` } }];
    await fenced.views.publish({ user_id: event.user, view: { type: 'home', blocks: blocks as never } });
    log.info('home.published', { user: event.user });
  });
}
