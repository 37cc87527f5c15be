/** `/autohub`: an ephemeral answer saying which copy answered and how its store is. */
import type { App } from '@slack/bolt';
import type { HealthMonitor } from '../../lib/receiver/index.js';

export function describeCopy(health: HealthMonitor): string {
  const { body } = health.report();
  const store =
    body.store.ok === null ? 'not checked yet' : body.store.ok ? 'reachable' : `unreachable (${body.store.reason ?? 'no answer'})`;
  return [
    `*${body.role}* copy \`${body.instance}\` (v${body.version}) answered, up ${body.uptime_s}s.`,
    `Claim store: ${body.store.kind}, ${store}.`,
  ].join('\n');
}

export function registerCommand(app: App, health: HealthMonitor): void {
  app.command('/autohub', async ({ ack }) => {
    await ack({ response_type: 'ephemeral', text: describeCopy(health) });
  });
}
