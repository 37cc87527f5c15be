/**
 * The handle alone ends a turn that ran: finished when its listener returns,
 * handed back when it stood down under a lease that is still its own,
 * handed back or dead-lettered when it throws, left alone when another copy
 * holds it; a turn skipped past its conversation's bound answered with its
 * note and finished with it. Before, the runner ended the turn after the listener returned
 * and failed it after a throw, while the handle finished it too: two owners
 * of one end, each reading the other's state. These tests drive a real
 * handle, its writes through a real WebClient to the fake Web API, with a
 * lease that counts what it is asked to do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../lib/errors/index.js';
import type { ReleaseReply } from '../../lib/store/index.js';
import { DEAD_NOTE, RETRYING_NOTE, SKIPPED_NOTE, type TurnFence } from '../../lib/turn/handle.js';
import { partMetadata } from '../../lib/turn/parts.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { copyClients, turnHandle } from '../support/handles.js';

/** A lease that keeps what the handle asks of it, and answers a fail with `failReply`. */
function countingLease(failReply: ReleaseReply = 'retry', attempts = 1) {
  const asked = { finish: [] as Array<string | null>, fail: [] as string[] };
  const control = new AbortController();
  const lease = {
    key: 'autohub:event:T0AUTOHUB:Ev-end',
    token: 1,
    signal: control.signal,
    checkThreadFirst: false,
    previousState: undefined,
    attempts,
    parts: [],
    lost: false,
    finished: false,
    recordParts: async () => {},
    confirmed: () => {},
    confirm: async () => {},
    abort: () => {},
    finish: async (ts: string | null) => void asked.finish.push(ts),
    fail: async (failure: { reason: string }) => {
      asked.fail.push(failure.reason);
      return failReply === 'retry' ? { reply: failReply, retryInMs: 60_000 } : { reply: failReply };
    },
  } satisfies TurnFence;
  return { lease, asked };
}

describe('the handle ends the turn that ran', () => {
  const api = useFakeWebApi();
  afterEach(() => {
    api.calls.length = 0;
  });

  function handleOn(lease: TurnFence | undefined) {
    const clients = copyClients(api.url);
    const client = clients.plain;
    const handle = turnHandle(clients, { lease: () => lease });
    const answer = (takeTurn: () => unknown) =>
      handle.answer(
        {
          event: { type: 'app_mention', channel: 'C0TEST', user: 'U0PERSON', text: '<@UAUTOHUB> hi', ts: '1700950000.000001' },
          body: { event_id: 'Ev-end', team_id: 'T0AUTOHUB', api_app_id: 'A0AUTOHUB' },
          context: { botUserId: 'UAUTOHUB' },
        },
        takeTurn as never,
      );
    /** The turn throws `error` out of its answer, then the runner asks the handle to end it. */
    const throwsThenEnds = async (error: Error, o: { expired?: boolean; lease?: TurnFence } = {}) => {
      await expect(
        answer(() => {
          throw error;
        }),
      ).rejects.toBe(error);
      return handle.failed(error, { expired: o.expired === true, fields: {}, leaseNow: async () => o.lease });
    };
    return { handle, client, answer, throwsThenEnds };
  }
  const notes = (text: string) => api.posts().filter((p) => p.params.text === text).length;

  it('a turn with nothing to say is finished once, with no reply, when its listener returns', async () => {
    const { lease, asked } = countingLease();
    const { handle, answer } = handleOn(lease);
    await answer(() => undefined);
    await handle.ran();
    expect(asked.finish).toEqual([null]);
    expect(asked.fail).toEqual([]);
  });

  it('a turn that stood down at the fence, its lease still its own, is handed back, not finished (finished, the turn would be lost)', async () => {
    const { lease, asked } = countingLease();
    const { handle, answer } = handleOn(lease);
    await answer(() => {
      throw new LeaseLostError('write: another copy holds the turn');
    });
    await handle.ran();
    expect(asked.fail).toEqual(['stood down at the fence']);
    expect(asked.finish).toEqual([]);
  });

  it('a turn lost to another copy is left to it: nothing is handed back, dead-lettered or told', async () => {
    const { lease, asked } = countingLease('dead');
    const { handle } = handleOn(lease);
    const end = await handle.failed(new LeaseLostError('write'), { expired: false, fields: {}, leaseNow: async () => lease });
    expect(end).toEqual({ kind: 'over' });
    expect(asked.fail).toEqual([]);
    expect(notes(DEAD_NOTE)).toBe(0);
  });

  it('a turn that threw a bug is dead-lettered through its lease and the person told once; the runner is told whose dead letter it is', async () => {
    const { lease, asked } = countingLease('dead', 2);
    const { throwsThenEnds } = handleOn(lease);
    const bug = new TypeError('the bot read a field of undefined');
    const end = await throwsThenEnds(bug, { lease });
    expect(end).toMatchObject({ kind: 'dead', key: lease.key, attempts: 2 });
    expect(asked.fail).toHaveLength(1);
    await expect.poll(() => notes(DEAD_NOTE)).toBe(1);
  });

  it('a second failure is handed back for a retry and the person hears it is taking long, once; the runner is told when it is due', async () => {
    const { lease, asked } = countingLease('retry', 2);
    const { throwsThenEnds } = handleOn(lease);
    const overloaded = Object.assign(new Error('overloaded'), { status: 529 });
    const end = await throwsThenEnds(overloaded, { lease });
    expect(end).toEqual({ kind: 'retry', retryInMs: 60_000 });
    expect(asked.fail).toHaveLength(1);
    await expect.poll(() => notes(RETRYING_NOTE)).toBe(1);
  });

  it('a turn past its deadline that could get no lease goes to the runner to keep, and the person is told it is dead', async () => {
    const { throwsThenEnds } = handleOn(undefined);
    const late = new Error('the model call returned after the deadline');
    const end = await throwsThenEnds(late, { expired: true });
    // Past its deadline, whatever it threw is a deadline: another run would hang again.
    expect(end).toEqual({ kind: 'unleased', failure: expect.objectContaining({ kind: 'permanent', reason: expect.stringMatching(/deadline|retry window/) }) });
    await expect.poll(() => notes(DEAD_NOTE)).toBe(1);
  });

  /** A follow-up in thread 5.1 that its conversation's bound skipped (lib/conversation says `skipped`). */
  const skipped = { team_id: 'T0AUTOHUB', event_id: 'Ev-end', event: { type: 'app_mention', channel: 'C0TEST', ts: '5.2', thread_ts: '5.1' } };

  it("a taken-over skipped turn finds its dead owner's note in the thread, posts none, and is finished with it (before: the taker-over posted the note a second time)", async () => {
    const { lease, asked } = countingLease();
    const { handle, client } = handleOn({ ...lease, checkThreadFirst: true });
    // The dead owner posted the note (the post landed, the finish never did).
    const note = await client.chat.postMessage({ channel: 'C0TEST', thread_ts: '5.1', text: SKIPPED_NOTE, metadata: partMetadata('Ev-end', 0, true) });
    expect(await handle.answerSkipped(skipped)).toBe(note.ts);
    expect(api.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
    expect(asked.finish).toEqual([note.ts]);
  });

  it('a first run of a skipped turn posts its note, final, without reading the thread (the read is only for a run that may have been answered)', async () => {
    const { lease, asked } = countingLease();
    const { handle } = handleOn(lease);
    const ts = await handle.answerSkipped(skipped);
    expect(api.calls.map((c) => c.method)).toEqual(['chat.postMessage']);
    expect(api.calls[0]!.params).toMatchObject({ channel: 'C0TEST', thread_ts: '5.1', text: SKIPPED_NOTE });
    expect(asked.finish).toEqual([ts]);
  });
});
