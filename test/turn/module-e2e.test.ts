/**
 * A turn module (AUTOHUB_TURN) on real copies. `ctx.step`
 * across a SIGKILL of the owner (the side effect once, the kept result in the
 * reply); `ctx.signal` firing when a frozen owner wakes to find its turn taken
 * over (its model call would stop there, not run on at its owner's cost).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventKey } from '../../lib/store/index.js';
import { loadTurnModule } from '../../app/turn-module.js';
import { slowAuth, useTakeoverRig } from '../support/takeover-rig.js';
import { eventually, repliesTo, SECRET, turnOver } from '../support/copies.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-turn-e2e-'));
const path = join(dir, 'step-turn.mjs');
writeFileSync(
  path,
  `
export async function takeTurn(request, ctx) {
  if (request.text.includes('wait for the signal')) {
    if (request.copy.role !== 'hub') return 'answered by the taker-over';
    ctx.log.warn('example.turn_started', { eventId: request.eventId });
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    ctx.log.warn('example.signal_aborted', { eventId: request.eventId });
    // A stale write after losing the turn: the fence keeps it back.
    return 'a second reply that must never land';
  }
  const ticket = await ctx.step('file_ticket', async () => {
    const posted = await ctx.client.chat.postMessage({ channel: 'C0TICKETS', text: 'ticket for ' + request.eventId });
    return { id: 'TCK-' + posted.ts };
  });
  // The hub holds the turn open after its step until it is killed; the taker-over answers at once.
  if (request.copy.role === 'hub') await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
  return 'Filed ' + ticket.id;
}
`,
);

describe('a turn module on real copies', () => {
  const rig = useTakeoverRig({ turn: () => loadTurnModule(path) });
  const tickets = () => rig.api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.channel === 'C0TICKETS');

  it("the owner SIGKILLed after its step: the ticket is filed once, and the taker-over's reply names it (before: every run filed one)", async () => {
    const hub = await rig.startHub({ AUTOHUB_TURN: path });
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-step-1', ts: '1700017000.000001' }), { signingSecret: SECRET });
    await eventually(() => tickets().length === 1, 'the hub to file its ticket');
    await eventually(async () => 'file_ticket' in ((await rig.cloud.store.loadSteps(eventKey('T0AUTOHUB', 'Ev-step-1'))) ?? {}), 'the step kept');
    hub.child.kill('SIGKILL');
    await turnOver(rig.cloud.store, 'Ev-step-1', 15_000);
    expect(tickets()).toHaveLength(1);
    const replies = repliesTo(rig.api, 'Ev-step-1');
    expect(replies).toHaveLength(1);
    expect(replies[0]!.params.text).toBe(`Filed TCK-${(tickets()[0]!.answer as { ts: string }).ts}`);
  });

  it('a frozen owner wakes to find its turn taken over: ctx.signal aborts and its late reply never lands', async () => {
    const hub = await rig.startHub({ AUTOHUB_TURN: path });
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-signal-1', ts: '1700017000.000002', text: '<@UAUTOHUB> wait for the signal' }), {
      signingSecret: SECRET,
    });
    // Frozen once its turn is running (the bot waits for its signal), not merely acked: frozen before the turn
    // began, the hub may learn it lost the turn before the bot listens (the next test).
    await eventually(() => /"example\.turn_started"/.test(hub.output()), 'the hub to be in its turn');
    hub.child.kill('SIGSTOP');
    await eventually(() => repliesTo(rig.api, 'Ev-signal-1').length === 1, 'the cloud to take the turn over', 15_000);
    hub.child.kill('SIGCONT');
    await eventually(() => /"example\.signal_aborted"/.test(hub.output()), "the woken hub's signal to abort", 15_000);
    await turnOver(rig.cloud.store, 'Ev-signal-1', 15_000);
    expect(repliesTo(rig.api, 'Ev-signal-1')).toHaveLength(1);
    expect(repliesTo(rig.api, 'Ev-signal-1')[0]!.params.text).toBe('answered by the taker-over');
  });

  it('a frozen owner that lost its turn before the turn began does not begin it: it stands down, and its bot is never called', async () => {
    // The bug: frozen after its ack but before its turn began, the hub woke, learned it lost the turn, and
    // then called the bot with an aborted signal; a bot waiting for the signal's 'abort' event waited forever.
    const hub = await rig.startHub({ AUTOHUB_TURN: path });
    // The hub's first Slack call (auth.test, before the turn begins) is answered long after the takeover.
    rig.api.script('auth.test', slowAuth(8000));
    const asked = () => rig.api.calls.filter((c) => c.method === 'auth.test').length;
    const before = asked();
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-signal-2', ts: '1700017000.000003', text: '<@UAUTOHUB> wait for the signal' }), {
      signingSecret: SECRET,
    });
    await eventually(() => asked() > before, 'the hub to be in its first Slack call');
    hub.child.kill('SIGSTOP');
    await eventually(() => repliesTo(rig.api, 'Ev-signal-2').length === 1, 'the cloud to take the turn over', 15_000);
    hub.child.kill('SIGCONT');
    await eventually(() => /"lease\.lost"/.test(hub.output()), 'the woken hub to learn it lost the turn', 15_000);
    await eventually(() => /"turn\.abandoned".*Ev-signal-2|Ev-signal-2.*"turn\.abandoned"/.test(hub.output()), 'the woken hub to stand down', 15_000);
    expect(hub.output()).not.toMatch(/"example\.turn_started".*Ev-signal-2/);
    await turnOver(rig.cloud.store, 'Ev-signal-2', 15_000);
    expect(repliesTo(rig.api, 'Ev-signal-2')).toHaveLength(1);
  });
});
