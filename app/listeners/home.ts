/** The App Home tab: the status page, published when the user opens it. */
import type { App } from '@slack/bolt';
import type { ClaimStore } from '../../lib/store/index.js';
import type { Logger } from '../../lib/log/index.js';
import type { HealthMonitor, TurnContext } from '../../lib/receiver/index.js';
import { statusPage } from './command.js';

export function registerHome(app: App, health: HealthMonitor, store: ClaimStore, log: Logger): void {
  app.event('app_home_opened', async ({ event, client, context }) => {
    if (event.tab !== 'home') return;
    const lease = (context as Partial<TurnContext>).autohubLease;
    const blocks = await statusPage(health, store);
    // Publishing twice is harmless, but a taken-over turn still commits first, like every post.
    if (lease && !(await lease.commit())) return;
    await client.views.publish({ user_id: event.user, view: { type: 'home', blocks: blocks as never } });
    await lease?.finish(null);
    log.info('home.published', { user: event.user });
  });
}
