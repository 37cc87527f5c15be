/**
 * A turn whose claim failed open has no lease while the confirm of that
 * claim is asked. Before, its first write left at once: when the confirm
 * then said the claim was another copy's, the reply was already posted
 * (answered twice), and a claim that had landed was attached after the
 * turn had written (or ended) unfenced. Now the first write waits for the
 * confirm under way; later writes do not, and the turn's deadline ends the wait.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TurnDeadlineError } from '../../lib/errors/index.js';
import { TurnFence, type FencedLease } from '../../lib/turn/fence.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { turnHandle } from '../support/handles.js';

/** A promise the test settles. */
function pending(): { promise: Promise<void>; settle: () => void } {
  let settle = () => {};
  const promise = new Promise<void>((resolve) => (settle = resolve));
  return { promise, settle };
}

describe("a turn's first write without a lease", () => {
  const api = useFakeWebApi();
  afterEach(() => {
    api.calls.length = 0;
  });

  function turn() {
    const state: { confirming: Promise<void> | undefined } = { confirming: undefined };
    const fence = new TurnFence();
    fence.confirming({ askNow: () => state.confirming });
    const handle = turnHandle(api.url, { fence, copy: { role: 'cloud', instance: 'cloud-test' } });
    const post = (text: string) => handle.client.chat.postMessage({ channel: 'C0TEST', text });
    return { handle, fence, state, post };
  }

  it("waits for the confirm under way: a claim that is another copy's stands the turn down before anything is posted", async () => {
    const { fence, state, post } = turn();
    const confirm = pending();
    state.confirming = confirm.promise;
    const write = post('the reply');
    // The confirm answers: the claim that timed out is another copy's.
    fence.bar("the claim that timed out is another copy's (held)");
    confirm.settle();
    await expect(write).rejects.toThrow(/another copy/);
    expect(api.posts()).toHaveLength(0);
  });

  it('waits for the confirm under way: a claim that landed is written under its lease', async () => {
    const { fence, state, post } = turn();
    const confirm = pending();
    state.confirming = confirm.promise;
    const fenced: string[] = [];
    const write = post('the reply');
    fence.attach({
      key: 'k',
      token: 1,
      signal: new AbortController().signal,
      checkThreadFirst: false,
      previousState: undefined,
      attempts: 1,
      parts: [],
      recordParts: async () => {},
      confirmed: () => {},
      confirm: async (at) => void fenced.push(at ?? 'write'),
      lost: false,
    } satisfies FencedLease);
    confirm.settle();
    await write;
    expect(fenced).toHaveLength(1);
    expect(api.posts()).toHaveLength(1);
  });

  it('later writes do not wait: while the store is away the turn runs on unfenced, as a claim that failed open does', async () => {
    const { state, post } = turn();
    await post('first');
    // A confirm asked now never answers (the store hangs): the next write leaves all the same.
    state.confirming = new Promise<void>(() => {});
    await post('second');
    expect(api.posts()).toHaveLength(2);
  });

  it("the turn's deadline ends the wait", async () => {
    const { handle, state, post } = turn();
    state.confirming = new Promise<void>(() => {});
    const write = post('the reply');
    handle.expire(new TurnDeadlineError('the retry window is over'));
    await write;
    expect(api.posts()).toHaveLength(1);
  });
});
