/**
 * ctx.ask when the asker is SIGKILLed while its turn waits (issue 44): the hub, a child process, parks the turn
 * and is killed (no drain, no goodbye); the person's click goes to the cloud copy, which resumes the turn once:
 * its earlier step read from the step book (not run again on any copy), ctx.ask returning the choice there.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { clickOn, questionIn } from '../support/ask.js';
import { eventually, quiescent, repliesTo, SECRET, startCopy, type RunningCopy } from '../support/copies.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { spawnHub, SHORT_LEASE, type ChildApp } from '../support/child-app.js';
import type { TurnModule } from '../../lib/bot/index.js';

const BOT = 'test/support/asking-bot.mjs';

describe('ctx.ask with the asker SIGKILLed while the turn waits', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  let cloud: RunningCopy | undefined;
  let hub: ChildApp | undefined;
  afterEach(async () => {
    hub?.child.kill('SIGKILL');
    await cloud?.stop();
    delete process.env.ASK_STEP_LOG;
  });

  it('the click to the other copy resumes the turn once there, its earlier step not run again', async () => {
    const steps = join(mkdtempSync(join(tmpdir(), 'autohub-ask-')), 'steps.log');
    writeFileSync(steps, '');
    // The bot reads ASK_STEP_LOG when a step runs: in this process (the cloud copy) and in the hub's.
    process.env.ASK_STEP_LOG = steps;
    const turn = (await import(pathToFileURL(resolve(BOT)).href)) as TurnModule;
    cloud = await startCopy({ role: 'cloud', webApiUrl: api.url, upstash: { url: fx.bridge.url, token: fx.bridge.token }, env: SHORT_LEASE, turn });
    hub = await spawnHub({ webApiUrl: api.url, upstash: fx.bridge, secret: SECRET }, { AUTOHUB_TURN: BOT, ASK_STEP_LOG: steps });
    const eventId = 'Ev-ask-sigkill';
    const ts = '1700000400.000100';
    expect((await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId, ts }), { signingSecret: SECRET })).status).toBe(200);
    await eventually(() => questionIn(api, ts) !== undefined && hub!.output().includes('"turn.parked"'), 'the turn parked on its question', 15_000);
    hub.child.kill('SIGKILL');
    await hub.exited;
    const click = clickOn(questionIn(api, ts)!, ts, { user: 'U0PERSON', triggerId: 'trig-ask-sigkill' });
    expect((await deliver(cloud.eventsUrl, click, { signingSecret: SECRET })).status).toBe(200);
    await eventually(() => repliesTo(api, eventId).length === 1, 'the resumed turn answered', 15_000);
    await quiescent([cloud]);
    expect(repliesTo(api, eventId).map((c) => c.params.text)).toEqual(['Deployed v2, chosen by <@U0PERSON>, on cloud-test.']);
    // Each step once: prepare by the killed hub before it asked, act by the cloud copy after the click.
    expect(readFileSync(steps, 'utf8').trim().split('\n')).toEqual([`prepare ${eventId} hub-child`, `act ${eventId} cloud-test`]);
    // The spawned hub's start, then each wait's own bound.
  }, 60_000);
});
