/**
 * A turn that kills every copy that runs it: each owner's death counts a run,
 * and the turn is dead-lettered within AUTOHUB_TURN_ATTEMPTS runs, told once.
 * Real copies, each a child process on a real Redis behind the Upstash bridge,
 * SIGKILLed mid-turn.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { UpstashStore } from '../../lib/store/index.js';
import { spawnHub, type ChildApp } from '../support/child-app.js';
import { eventually, SECRET } from '../support/copies.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { useFakeWebApi } from '../support/fixtures.js';

describe('owner deaths count', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const children: ChildApp[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.child.kill('SIGKILL');
  });

  /** The turns' auth.test calls: each copy's start-up token check is one more, made before it serves. */
  let started = 0;
  const authTests = () => api.calls.filter((c) => c.method === 'auth.test').length - started;
  /** A copy with two runs a turn, which tells U0OWNER of each dead letter. */
  const copy = async (instance: string) => {
    const child = await spawnHub(
      { webApiUrl: api.url, upstash: fx.bridge, secret: SECRET },
      { AUTOHUB_INSTANCE: instance, AUTOHUB_TURN_ATTEMPTS: '2', AUTOHUB_OWNER: 'U0OWNER' },
    );
    children.push(child);
    started += 1;
    return child;
  };
  const kill = async (c: ChildApp) => {
    c.child.kill('SIGKILL');
    await c.exited;
  };
  const count = (text: string, event: string) => text.split('\n').filter((l) => l.includes(`"event":"${event}"`)).length;

  it('an owner SIGKILLed mid-turn again and again, with AUTOHUB_TURN_ATTEMPTS=2: a dead letter after 2 runs, reported once, not a third run', async () => {
    // The bug: a takeover counted no run, so the turn was run again by every copy that looked, for the claim's 24 h.
    const slow = { status: 200, delayMs: 60_000, body: { ok: true, user_id: 'UAUTOHUB', bot_id: 'BAUTOHUB' } };
    // Every auth.test is held: a turn's (Bolt's authorize, the bot's identity) keeps it mid-run until its copy is
    // killed, and each copy's start-up token check gives up after its 3 s and starts anyway (app.token_unchecked).
    api.script('auth.test', ...Array.from({ length: 12 }, () => slow));
    // Run 1: the claim.
    const first = await copy('hub-a');
    let before = authTests();
    const ack = await deliver(`${first.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-deadly', ts: '1700000400.000100' }), { signingSecret: SECRET });
    expect(ack.headers.get('x-autohub-claim')).toBe('claimed');
    await eventually(() => authTests() > before, 'run 1 to be mid-turn');
    await kill(first);
    // Run 2: a takeover, killed mid-turn too.
    before = authTests();
    const second = await copy('hub-b');
    await eventually(() => second.output().includes('"lease.takeover"') && authTests() > before, 'run 2 (a takeover) to be mid-turn', 15_000);
    await kill(second);
    // The next copy to look finds the runs spent: a dead letter, not run 3.
    const third = await copy('hub-c');
    await eventually(() => third.output().includes('"turn.dead_letter"'), 'the dead letter', 15_000);
    await eventually(() => third.output().includes('"dead_letter.announced"'), 'the owner to be told', 10_000);
    expect(third.output()).not.toContain('"lease.takeover"');
    expect(third.output()).toMatch(/"turn.dead_letter".*"reason":"owner died 2 times"/);
    const outputs = [first, second, third].map((c) => c.output()).join('\n');
    expect(count(outputs, 'turn.dead_letter')).toBe(1);
    expect(api.posts().filter((p) => p.params.channel === 'U0OWNER')).toHaveLength(1);
    const store = new UpstashStore({ settings: { url: fx.bridge.url, token: fx.bridge.token }, reporter: () => {} });
    expect((await store.listDead(10))?.find((d) => d.eventId === 'Ev-deadly')).toMatchObject({ attempts: 2, reason: 'owner died 2 times' });
    // The copy that told the owner says so with its next look: from then no look reports the dead letter again.
    await eventually(async () => (await store.pending()) === 0, 'the dead letter marked told', 10_000);
    expect(count([first, second, third].map((c) => c.output()).join('\n'), 'turn.dead_letter')).toBe(1);
    // Three copies each wait out their start-up token check (3 s) besides the leases' lapses.
  }, 60_000);
});
