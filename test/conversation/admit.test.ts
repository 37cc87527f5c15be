/**
 * The runner's admit hook (lib/conversation/admit.ts) on the in-process
 * store: a turn whose claim timed out (failed open, no lease yet) still takes
 * its place in its conversation under its claim key.
 *
 * The bug the first ones catch: a turn without a lease ran at once, never
 * entering its thread's order (on a loaded machine the drill sees claims fail
 * open by the thousand once the hub is dead). A follow-up whose
 * claim timed out on a busy copy then ran beside the turn before it; and a
 * first message whose claim timed out was invisible to its follow-up, which
 * found nobody ahead and ran at once. Either way the follow-up's answer began
 * before the answer before it was whole. The last one: a turn skipped past
 * the bound is said to be skipped, for its handle to answer with the note
 * (test/turn/handle-end.test.ts: a taker-over whose dead owner posted the
 * note does not post it again; before, the drill's `assistant` answered one
 * to four twice a run).
 */
import { describe, expect, it } from 'vitest';
import { startFakeWebApi } from '../../drill/sim/fake-web-api.js';
import { conversationAdmit, ConversationGate } from '../../lib/conversation/index.js';
import { createMemoryLogger } from '../../lib/log/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { eventually } from '../support/copies.js';
import { silentConversations } from '../support/silent-conversations.js';

const owner = { instance: 'cloud-1', role: 'cloud' } as const;
/** A poll no test waits for: every look after the first is woken by `ended`. */
const HOUR = 3_600_000;

function rig(maxWaiting?: number) {
  let now = 1_000_000;
  const store = new MemoryStore({ now: () => now });
  const log = createMemoryLogger();
  const gate = new ConversationGate({ store, log, pollMs: HOUR, now: () => now, ...(maxWaiting !== undefined ? { maxWaiting } : {}) });
  const hook = conversationAdmit(gate);
  /** A mention (or a follow-up in `thread`), claimed in the store as the receiver claims it. */
  const turn = async (eventId: string, ts: string, thread?: string) => {
    const key = `autohub:claim:T1:event:${eventId}`;
    await store.claim([key], owner, { leaseMs: 10_000, body: '{}' });
    now += 1;
    const body = { team_id: 'T1', event_id: eventId, event: { type: 'app_mention', channel: 'C1', ts, ...(thread ? { thread_ts: thread } : {}) } };
    return { key, body };
  };
  return { store, gate, hook, turn, log };
}

const never = () => new AbortController().signal;
/** What the hook reads of a turn whose claim was won (a lease on its fence) or timed out (none: its fence's signal only). */
const leased = (t: { key: string; body: Record<string, unknown> }) => ({
  delivery: { body: t.body, claimKeys: [t.key] },
  fence: { lease: { key: t.key }, signal: never() },
  logFields: { eventId: t.body.event_id },
});
const failedOpen = (t: { key: string; body: Record<string, unknown> }, signal = never()) => ({
  delivery: { body: t.body, claimKeys: [t.key] },
  fence: { signal },
  logFields: { eventId: t.body.event_id },
});

describe('the admit hook and claims that failed open', () => {
  it('a follow-up whose claim timed out (no lease yet) waits for the turn before it, and runs when that one ends', async () => {
    const { store, gate, hook, turn } = rig();
    const first = await turn('Ev-a-first', '1.1');
    const follow = await turn('Ev-a-follow', '1.2', '1.1');
    expect(await hook.admit(leased(first), never())).toEqual({ kind: 'run' });
    let verdict: unknown;
    void hook.admit(failedOpen(follow), never()).then((v) => (verdict = v));
    await eventually(() => gate.waiting === 1, 'the follow-up to wait');
    expect(verdict).toBeUndefined();
    await store.finish(first.key, 1, '1.3');
    hook.ended(leased(first));
    await eventually(() => verdict !== undefined, 'the follow-up admitted');
    expect(verdict).toEqual({ kind: 'run' });
  });

  it('a first message whose claim timed out still holds its thread: its follow-up waits for it', async () => {
    const { store, gate, hook, turn } = rig();
    const first = await turn('Ev-b-first', '2.1');
    const follow = await turn('Ev-b-follow', '2.2', '2.1');
    expect(await hook.admit(failedOpen(first), never())).toEqual({ kind: 'run' });
    let verdict: unknown;
    void hook.admit(leased(follow), never()).then((v) => (verdict = v));
    await eventually(() => gate.waiting === 1, 'the follow-up to wait');
    expect(verdict).toBeUndefined();
    await store.finish(first.key, 1, '2.3');
    hook.ended(failedOpen(first));
    await eventually(() => verdict !== undefined, 'the follow-up admitted');
    expect(verdict).toEqual({ kind: 'run' });
  });

  it('a waiting turn whose timed-out claim turns out to be another copy’s (its fence is barred) stops waiting: gone', async () => {
    const { gate, hook, turn } = rig();
    const first = await turn('Ev-c-first', '3.1');
    const follow = await turn('Ev-c-follow', '3.2', '3.1');
    await hook.admit(leased(first), never());
    const standDown = new AbortController();
    const verdict = hook.admit(failedOpen(follow, standDown.signal), never());
    await eventually(() => gate.waiting === 1, 'the follow-up to wait');
    standDown.abort(new Error('the claim that timed out is another copy’s'));
    expect(await verdict).toEqual({ kind: 'gone' });
  });

  it('a turn whose claim failed open gets as many looks as any turn from a store slow to answer the gate (three), then runs', async () => {
    const log = createMemoryLogger();
    const { store, looks } = silentConversations();
    const hook = conversationAdmit(new ConversationGate({ store, log, pollMs: 1 }));
    const t = { key: 'autohub:claim:T1:event:Ev-d', body: { team_id: 'T1', event_id: 'Ev-d', event: { type: 'app_mention', channel: 'C1', ts: '4.1' } } };
    expect(await hook.admit(failedOpen(t), never())).toEqual({ kind: 'run' });
    expect(looks()).toBe(3);
  });
});

describe('a skipped turn: the admit hook says so (its handle answers it with the note: test/turn/handle-end.test.ts)', () => {
  /** Three messages in one thread, one waiting allowed: the second is skipped when the third looks. */
  async function skippedSecond() {
    const r = rig(1);
    const first = await r.turn('Ev-s-first', '5.1');
    const second = await r.turn('Ev-s-second', '5.2', '5.1');
    const third = await r.turn('Ev-s-third', '5.3', '5.1');
    expect(await r.hook.admit(leased(first), never())).toEqual({ kind: 'run' });
    // The second's owner waits (and dies waiting); the third's look skips it past the bound.
    const dies = new AbortController();
    const owner = r.hook.admit(leased(second), dies.signal);
    await eventually(() => r.gate.waiting === 1, 'the second to wait');
    void r.hook.admit(leased(third), never());
    await eventually(() => r.log.lines.some((l) => l.event === 'conversation.bounded'), 'the third to skip the second');
    dies.abort();
    await owner;
    return { ...r, second };
  }

  it("the hook posts nothing of its own: it says `skipped`, for the turn's handle to answer (one owner for what a turn writes)", async () => {
    const api = await startFakeWebApi();
    try {
      const { second, store, log } = await skippedSecond();
      // Another copy's gate over the same store takes the turn over.
      const cloud = conversationAdmit(new ConversationGate({ store, log, pollMs: HOUR }));
      expect(await cloud.admit({ ...leased(second), fence: { lease: { key: second.key }, signal: never() } }, never())).toEqual({
        kind: 'skipped',
      });
      expect(api.calls).toHaveLength(0);
    } finally {
      await api.close();
    }
  });
});
