/**
 * Issue 22, end to end: a turn module (AUTOHUB_TURN) on real copies. `ctx.step`
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
import { useTakeoverRig } from '../support/takeover-rig.js';
import { eventually, repliesTo, SECRET, turnOver } from '../support/copies.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-turn-e2e-'));
const path = join(dir, 'step-turn.mjs');
writeFileSync(
  path,
  `
export async function takeTurn(request, ctx) {
  if (request.text.includes('wait for the signal')) {
    if (request.copy.role !== 'hub') return 'answered by the taker-over';
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
    await eventually(() => /"delivery\.acked"/.test(hub.output()), 'the hub to take the turn');
    hub.child.kill('SIGSTOP');
    await eventually(() => repliesTo(rig.api, 'Ev-signal-1').length === 1, 'the cloud to take the turn over', 15_000);
    hub.child.kill('SIGCONT');
    await eventually(() => /"example\.signal_aborted"/.test(hub.output()), "the woken hub's signal to abort", 15_000);
    await turnOver(rig.cloud.store, 'Ev-signal-1', 15_000);
    expect(repliesTo(rig.api, 'Ev-signal-1')).toHaveLength(1);
    expect(repliesTo(rig.api, 'Ev-signal-1')[0]!.params.text).toBe('answered by the taker-over');
  });
});
