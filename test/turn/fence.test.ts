/**
 * A turn's fence (lib/turn/fence.ts) is one object that the rate-limited
 * fetch, the step book and the reply writer all ask. Before it, the handle
 * handed each of them a closure of its own (`lease()`, `confirming()`,
 * `#fence`, a step's `onLost` calling back into the handle), and the
 * runner had to remember to tell the handle of a lease attached late
 * (`follow`): what one of them learned, the others heard only if every
 * closure was wired. These tests hold the fence to what they share, with a
 * real WebClient against the fake Web API and a real step book.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../lib/errors/index.js';
import { MemoryStore } from '../../lib/store/index.js';
import { TurnFence, type FencedLease } from '../../lib/turn/fence.js';
import { StepBook } from '../../lib/turn/steps.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { copyClients } from '../support/handles.js';

/** A lease that counts its confirms, aborted by `control`. */
function leaseOf(token: number, control = new AbortController()) {
  const confirms: string[] = [];
  const lease = {
    key: 'autohub:claim:T1:event:Ev-fence',
    token,
    signal: control.signal,
    checkThreadFirst: false,
    previousState: undefined,
    attempts: 1,
    parts: ['1.000001'],
    recordParts: async () => {},
    confirmed: () => {},
    confirm: async (at?: string) => void confirms.push(at ?? 'write'),
    lost: false,
  } satisfies FencedLease;
  return { lease, confirms, control };
}

describe("a turn's fence, shared by its writes, its steps and its reply's record", () => {
  const api = useFakeWebApi();
  afterEach(() => {
    api.calls.length = 0;
  });

  it('a lease attached mid-turn fences every write after it, and the turn stops when that lease is lost (before: the runner had to tell the handle to follow it)', async () => {
    const fence = new TurnFence();
    const client = copyClients(api.url).clientFor(fence);
    await client.chat.postMessage({ channel: 'C0TEST', text: 'unfenced: the claim failed open' });
    const { lease, confirms, control } = leaseOf(1);
    fence.attach(lease);
    await client.chat.postMessage({ channel: 'C0TEST', text: 'under the lease' });
    expect(confirms).toEqual(['write']);
    expect(fence.token).toBe(1);
    expect(fence.parts).toEqual(['1.000001']);
    control.abort(new LeaseLostError('taken over'));
    expect(fence.signal.aborted).toBe(true);
    expect(fence.signal.reason).toBeInstanceOf(LeaseLostError);
  });

  it("a step whose result the store refused (another copy holds the turn) bars the turn's writes: its next post never leaves (before: the step called back into the handle to stand it down)", async () => {
    const store = new MemoryStore();
    const key = 'autohub:claim:T1:event:Ev-fence-step';
    // The taker-over (token 2) holds the record; this copy still runs under token 1.
    await store.claim([key], { instance: 'cloud-test', role: 'cloud' }, { leaseMs: 60_000, eventId: 'Ev-fence-step', body: '{}' });
    expect(await store.keepStep(key, 'file_ticket', '{"v":"theirs"}', 1)).toBe('ok');
    const fence = new TurnFence(leaseOf(0).lease);
    const book = new StepBook({ store, key, kept: undefined, eventId: 'Ev-fence-step', fence });
    const client = copyClients(api.url).clientFor(fence);
    await expect(book.run('file_ticket', () => 'mine')).rejects.toBeInstanceOf(LeaseLostError);
    expect(fence.barred).toMatch(/another copy holds the turn/);
    expect(fence.signal.aborted).toBe(true);
    await expect(client.chat.postMessage({ channel: 'C0TEST', text: 'the reply' })).rejects.toThrow(/another copy holds the turn/);
    expect(api.posts()).toHaveLength(0);
  });

  it("once the turn's end is recorded, a write or a step is refused, as after the lease's finish (before: the handle's outcome was its own flag)", async () => {
    const { lease } = leaseOf(1);
    const fence = new TurnFence(lease);
    const client = copyClients(api.url).clientFor(fence);
    fence.end();
    await expect(client.chat.postMessage({ channel: 'C0TEST', text: 'after the end' })).rejects.toThrow(/write after the turn ended/);
    await expect(fence.check('step')).rejects.toThrow(/step after the turn ended/);
    expect(api.posts()).toHaveLength(0);
    // Stopping the turn (its deadline, an interrupt) bars nothing: the fence's signal aborts, its bar stays unset.
    const other = new TurnFence(leaseOf(1).lease);
    other.stop(new Error('deadline'));
    expect(other.signal.aborted).toBe(true);
    expect(other.barred).toBeUndefined();
    await other.check();
  });
});
