/**
 * A module's `register(app, helpers)` adds its own listeners (a
 * slash command here), and they get the same claim protection as the bot's
 * turn: the same command delivered to both copies (Slack does not retry a
 * command, but the edge may fail over a slow hub's) runs once.
 */
import { describe, expect, it } from 'vitest';
import type { App } from '@slack/bolt';
import { commandForm, deliver } from '../../drill/sim/slack-events.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('register(app, helpers)', () => {
  const fx = useRedisBridge();
  const runs: string[] = [];
  const bot: TurnModule = {
    takeTurn: () => 'hi',
    register: (app) => {
      (app as App).command('/ticket', async ({ ack, command }) => {
        runs.push(command.trigger_id);
        await ack(`filed: ${command.text}`);
      });
    },
  };
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx, turn: bot });
  const cloud = useCopy({ role: 'cloud', api, redis: fx, turn: bot });

  it('adds a slash command that answers, and the same command delivered to both copies runs once', async () => {
    const form = commandForm({ command: '/ticket', text: 'printer on fire', triggerId: '1700018000.trigger.1' });
    const [a, b] = await Promise.all([deliver(hub.eventsUrl, form, { signingSecret: SECRET }), deliver(cloud.eventsUrl, form, { signingSecret: SECRET })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.headers.get('x-autohub-claim'), b.headers.get('x-autohub-claim')].sort()).toEqual(['claimed', 'duplicate']);
    const answered = a.headers.get('x-autohub-claim') === 'claimed' ? a : b;
    expect(await answered.text()).toContain('filed: printer on fire');
    expect(runs).toEqual(['1700018000.trigger.1']);
  });
});
