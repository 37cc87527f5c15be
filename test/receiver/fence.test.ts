/**
 * The commit point is a fence where each write leaves. A copy that
 * waits out a rate-limit window (or is frozen in it, or loses the store in
 * it) re-confirms its lease before the request goes; one that was taken over
 * meanwhile stands down instead of writing a second reply.
 */
import { describe, expect, it } from 'vitest';
import { useTakeoverRig } from '../support/takeover-rig.js';
import { eventually, repliesTo as repliesOf, turnOver } from '../support/copies.js';

describe('a write waits out a window, then meets the fence', () => {
  const { api, cloud, ...rig } = useTakeoverRig();
  const repliesTo = (eventId: string) => repliesOf(api, eventId);

  /** The hub claims a mention and its first write is refused 429 with a Retry-After of `seconds`: it is waiting now. */
  const hubInWindow = (eventId: string, seconds: number) =>
    rig.hubMidTurn({
      eventId,
      method: 'chat.startStream',
      answer: { status: 429, headers: { 'retry-after': String(seconds) }, body: { ok: false, error: 'ratelimited' } },
    });

  it('the hub frozen (lid closed) inside a Retry-After wait and taken over: woken, it writes nothing (before: a second complete reply)', async () => {
    const hub = await hubInWindow('Ev-fence-frozen', 3);
    hub.child.kill('SIGSTOP');
    await eventually(() => repliesTo('Ev-fence-frozen').length > 0, 'the cloud to take the turn over and answer', 15_000);
    const callsBefore = api.calls.length;
    hub.child.kill('SIGCONT');
    await eventually(() => /"turn\.abandoned"/.test(hub.output()), 'the woken hub to stand down at the fence', 15_000);
    await turnOver(cloud.store, 'Ev-fence-frozen');
    expect(repliesTo('Ev-fence-frozen')).toHaveLength(1);
    expect(repliesTo('Ev-fence-frozen')[0]!.params.text).toMatch(/the cloud copy/);
    // Nothing of the hub's left after it woke: no start, append, stop or update.
    const after = api.calls.slice(callsBefore).filter((c) => c.method.startsWith('chat.'));
    expect(after).toHaveLength(0);
    expect(hub.output()).not.toContain('"turn.replied"');
  });

  it("the store hangs through the hub's wait, so its renewals fail and the cloud takes over: the hub does not write after the wait", async () => {
    const hub = await hubInWindow('Ev-fence-store', 2);
    rig.fx.redis.pause();
    // Past the window and past the lease (1.5 s), with no store to renew against.
    await eventually(() => /"lease\.renew_failed"/.test(hub.output()), "the hub's renewals to fail");
    await eventually(() => /"turn\.(failed|abandoned)"/.test(hub.output()), 'the hub to stand down at the fence, the store away', 15_000);
    rig.fx.redis.resume();
    await eventually(() => repliesTo('Ev-fence-store').length > 0, 'the turn to be answered once the store is back', 20_000);
    await turnOver(cloud.store, 'Ev-fence-store', 20_000);
    // Whichever copy takes the turn once the store is back answers it, once; the hub's first run wrote nothing.
    expect(repliesTo('Ev-fence-store')).toHaveLength(1);
    expect(hub.output()).toMatch(/"turn\.(failed|abandoned)","level":"warn"[^\n]*"eventId":"Ev-fence-store"/);
  });
});
