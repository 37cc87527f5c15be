/**
 * A step's side effect under a frozen owner, on real copies: the hub (a child
 * process) waits inside its turn, then files a ticket in `ctx.step`; it is
 * frozen (SIGSTOP) mid-wait, the cloud copy takes the turn over, files the
 * ticket and answers; the hub is woken and its wait ends. Before, the woken
 * hub filed the ticket a second time (its reply was fenced, its step was
 * not): the step's check of the lease, right before fn, now stops it. The
 * ticket carries the step's idempotency key, made from the event id and the
 * step's name (the same on every copy), for the run no check can stop.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { loadTurnModule } from '../../app/turn-module.js';
import { stepKey } from '../../lib/turn/steps.js';
import { useTakeoverRig } from '../support/takeover-rig.js';
import { eventually, repliesTo, SECRET, turnOver } from '../support/copies.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-frozen-step-'));
const tickets = join(dir, 'tickets.txt');
const gate = join(dir, 'gate');
const path = join(dir, 'frozen-step-turn.mjs');
writeFileSync(
  path,
  `
import { appendFileSync, existsSync } from 'node:fs';
export async function takeTurn(request, ctx) {
  if (request.copy.role === 'hub') {
    // The hub waits (a slow model call, a queue) until the test opens the gate: it is frozen meanwhile.
    ctx.log.warn('example.waiting', { eventId: request.eventId });
    while (!existsSync(${JSON.stringify(gate)})) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const ticket = await ctx.step('file_ticket', async ({ idempotencyKey }) => {
    // A side effect outside Slack: nothing fences it but the step.
    appendFileSync(${JSON.stringify(tickets)}, request.copy.role + ' ' + idempotencyKey + '\\n');
    return { by: request.copy.role };
  });
  return 'Filed by ' + ticket.by;
}
`,
);

/** The tickets filed, as `role key` (the step's idempotency key). */
const filed = (): string[] => (existsSync(tickets) ? readFileSync(tickets, 'utf8').split('\n').filter(Boolean) : []);
const key = stepKey('Ev-frozen-step-1', 'file_ticket');

describe('a step under a frozen owner, on real copies', () => {
  const rig = useTakeoverRig({ turn: () => loadTurnModule(path) });

  it('the hub frozen mid-wait, the cloud copy takes over and files the ticket; the woken hub files nothing more: 1 ticket (before: 2)', async () => {
    const hub = await rig.startHub({ AUTOHUB_TURN: path });
    await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-frozen-step-1', ts: '1700017100.000001' }), { signingSecret: SECRET });
    await eventually(() => /"example\.waiting"/.test(hub.output()), 'the hub to wait inside its turn');
    hub.child.kill('SIGSTOP');
    await eventually(() => repliesTo(rig.api, 'Ev-frozen-step-1').length === 1, 'the cloud copy to take the turn over and answer', 15_000);
    expect(filed()).toEqual([`cloud ${key}`]);
    // The hub wakes with its wait over: the next thing its turn does is the step.
    writeFileSync(gate, '');
    hub.child.kill('SIGCONT');
    await eventually(() => /"turn\.abandoned"/.test(hub.output()), 'the woken hub to stand down', 15_000);
    await turnOver(rig.cloud.store, 'Ev-frozen-step-1', 15_000);
    expect(filed()).toEqual([`cloud ${key}`]);
    expect(repliesTo(rig.api, 'Ev-frozen-step-1').map((r) => r.params.text)).toEqual(['Filed by cloud']);
  });
});
