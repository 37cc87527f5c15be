/**
 * A `/deploy` bot, for tests of a slash command on copies over a slow store
 * (test/work/): its listener keeps each run (which copy, what text), may post
 * `deploying <text>` in the channel, and answers `deployed <text>` in its ack;
 * and the `/deploy` form as Slack signs and sends it, answered at a
 * response_url of the test's so that a late answer can be read there.
 */
import type { App } from '@slack/bolt';
import { commandForm, deliver } from '../../drill/sim/slack-events.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { SECRET } from './copies.js';

export interface DeployRun {
  /** The copy that ran it (its `context.autohubInstance`). */
  instance: string;
  /** The command's text. */
  text: string;
}

export interface DeployBot {
  turn: TurnModule;
  /** Each run of the listener, in the order they began. */
  runs: DeployRun[];
}

/**
 * The bot. With `post`, each run first posts `deploying <text>` in the
 * command's channel, so that a run counts in Slack as well as in `runs`.
 */
export function deployBot(o: { post?: boolean } = {}): DeployBot {
  const runs: DeployRun[] = [];
  const turn: TurnModule = {
    takeTurn: () => 'ok',
    register: (app) =>
      (app as App).command('/deploy', async ({ ack, client, command, context }) => {
        runs.push({ instance: String(context.autohubInstance), text: command.text });
        if (o.post) await client.chat.postMessage({ channel: command.channel_id, text: `deploying ${command.text}` });
        await ack({ text: `deployed ${command.text}` });
      }),
  };
  return { turn, runs };
}

/** `/deploy <text>` POSTed to a copy's events URL, signed now with the copies' secret, its answer going to `responseUrl`. */
export function sendDeploy(eventsUrl: string, o: { triggerId: string; text: string; responseUrl: string }): Promise<Response> {
  const form = new URLSearchParams(commandForm({ command: '/deploy', triggerId: o.triggerId, text: o.text }));
  form.set('response_url', o.responseUrl);
  return deliver(eventsUrl, form.toString(), { signingSecret: SECRET });
}
