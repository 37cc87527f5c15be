/**
 * A copy whose turn slots are all taken runs a delivery a person waits on the
 * moment (a slash command, a click on a question) in the next free slot,
 * ahead of mentions that waited longer. The bug this catches: everything
 * waited in arrival order, so on a copy back from a crash, with a queue of
 * mentions seconds long, a person's click on a question ran after the
 * question's timeout had answered it (the drill's `ask` at 1,000 mentions,
 * about half its runs: the person told "answered already", the turn "no
 * answer in time").
 */
import { describe, expect, it } from 'vitest';
import type { App } from '@slack/bolt';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import type { TurnModule } from '../../lib/bot/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { eventually, SECRET } from '../support/copies.js';
import { sendDeploy } from '../support/deploy-bot.js';
import { useCopy, useFakeWebApi, useResponseUrl } from '../support/fixtures.js';

/** What ran, in the order it began. */
const began: string[] = [];
let release: () => void = () => {};
const held = new Promise<void>((resolve) => (release = resolve));

const bot: TurnModule = {
  async takeTurn(request) {
    began.push(request.text);
    // The first mention holds the copy's one slot until the test lets it go.
    if (request.text.includes('hold')) await held;
    return 'ok';
  },
  register: (app) =>
    (app as App).command('/deploy', async ({ ack, command }) => {
      began.push(`/deploy ${command.text}`);
      await ack({ text: `deployed ${command.text}` });
    }),
};

describe('a copy with every slot taken', () => {
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, store: new MemoryStore(), turn: bot, env: { AUTOHUB_MAX_TURNS: '1' } });
  const hook = useResponseUrl();

  it('runs a slash command in the next free slot, ahead of a mention that waited longer', async () => {
    const ts = (n: number) => `${Math.floor(Date.now() / 1000) - 60}.00000${n}`;
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-pf-hold', ts: ts(1), text: '<@UAUTOHUB> hold' }), { signingSecret: SECRET });
    await eventually(() => began.includes('hold'), 'the first mention to hold the one slot');
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-pf-second', ts: ts(2), text: '<@UAUTOHUB> second' }), { signingSecret: SECRET });
    await eventually(() => hub.runner.queued === 1, 'the second mention to wait for the slot');
    // Its ack carries its answer, so it is not awaited here: it waits for the slot too.
    const command = sendDeploy(hub.eventsUrl, { triggerId: 'trig-pf', text: 'prod', responseUrl: hook.url });
    await eventually(() => hub.runner.queued === 2, 'the command to wait for the slot');
    release();
    await command;
    await eventually(() => began.length === 3, 'all three to run');
    expect(began.map((t) => t.replace(/^<@UAUTOHUB> /, ''))).toEqual(['hold', '/deploy prod', 'second']);
  });
});
