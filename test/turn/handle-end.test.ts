/**
 * A turn that ran ends once, through TurnEnds (lib/runner/turn-ends.ts),
 * from what its handle recorded: finished when its listener returns,
 * handed back when it stood down under a lease that is still its own,
 * handed back or dead-lettered when it throws, left alone when another copy
 * holds it; a turn skipped past its conversation's bound answered with its
 * note and finished with it. Before, the handle finished a turn inside its
 * answer while TurnEnds failed it after a throw: two writers of one end.
 * These tests drive a real handle, its writes through a real WebClient to
 * the fake Web API, with a lease that counts what it is asked to do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../lib/errors/index.js';
import type { ReleaseReply } from '../../lib/store/index.js';
import { silentLogger } from '../../lib/log/index.js';
import type { DeadTurn, TurnLease } from '../../lib/lease/index.js';
import { AckGate, type Turn } from '../../lib/runner/index.js';
import { TurnEnds } from '../../lib/runner/turn-ends.js';
import { DEAD_NOTE, RETRYING_NOTE, SKIPPED_NOTE, type TurnHandle } from '../../lib/turn/handle.js';
import { TurnFence, type FencedLease } from '../../lib/turn/fence.js';
import { partMetadata } from '../../lib/turn/parts.js';
import { useFakeWebApi } from '../support/fixtures.js';
import { copyClients, turnHandle } from '../support/handles.js';

/** A lease that keeps the ends it is asked to write, and answers a fail with `failReply`. */
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
    finish: async (ts: string | null) => void asked.finish.push(ts),
    fail: async (failure: { reason: string }) => {
      asked.fail.push(failure.reason);
      return failReply === 'retry' ? { reply: failReply, retryInMs: 60_000 } : { reply: failReply };
    },
  } satisfies FencedLease & Pick<TurnLease, 'finished' | 'finish' | 'fail'>;
  return { lease, asked };
}

/** The runner's ends of one turn, `handle`'s, under `lease` (none: its claim failed open and no late claim is taken). */
function endsOf(handle: TurnHandle, fence: TurnFence<TurnLease>, o: { expired?: boolean } = {}) {
  const turn = {
    delivery: { kind: 'event', body: { event_id: 'Ev-end' }, eventId: 'Ev-end', teamId: 'T0AUTOHUB', claimKeys: ['autohub:event:T0AUTOHUB:Ev-end'] },
    gate: AckGate.detached(),
    receivedAt: 0,
    claim: 'claimed',
    retry: { retryNum: undefined, retryReason: undefined },
    logFields: {},
    fence,
    expired: o.expired === true,
  } satisfies Turn;
  /** What the runner was asked to do next: look at the store when a retry is due, tell the owner of a dead letter. */
  const told = { lookIn: [] as number[], dead: [] as DeadTurn[] };
  const ends = new TurnEnds({
    log: silentLogger,
    lookIn: (ms) => told.lookIn.push(ms),
    deadLetter: (dead) => told.dead.push(dead),
    handleOf: () => handle,
    leaseNow: async () => turn.fence.lease,
    reclaimed: async () => undefined,
    forget: () => {},
    inject: async () => 'duplicate',
  });
  return { told, ran: () => ends.end(turn, { kind: 'ran' }), failed: (error: unknown) => ends.end(turn, { kind: 'failed', error }) };
}

describe('a turn that ran ends once, through TurnEnds', () => {
  const api = useFakeWebApi();
  afterEach(() => {
    api.calls.length = 0;
  });

  function handleOn(lease: FencedLease | undefined, o: { expired?: boolean } = {}) {
    const clients = copyClients(api.url);
    const client = clients.plain;
    const fence = new TurnFence(lease as TurnLease | undefined);
    const handle = turnHandle(clients, { fence });
    const answer = (takeTurn: () => unknown) =>
      handle.answer(
        {
          event: { type: 'app_mention', channel: 'C0TEST', user: 'U0PERSON', text: '<@UAUTOHUB> hi', ts: '1700950000.000001' },
          body: { event_id: 'Ev-end', team_id: 'T0AUTOHUB', api_app_id: 'A0AUTOHUB' },
          context: { botUserId: 'UAUTOHUB' },
        },
        takeTurn as never,
      );
    const ends = endsOf(handle, fence, o);
    /** The turn throws `error` out of its answer, then the runner ends it. */
    const throwsThenEnds = async (error: Error) => {
      await expect(
        answer(() => {
          throw error;
        }),
      ).rejects.toBe(error);
      await ends.failed(error);
    };
    return { handle, client, answer, ends, throwsThenEnds };
  }
  const notes = (text: string) => api.posts().filter((p) => p.params.text === text).length;

  it('a turn with nothing to say is finished once, with no reply, when its listener returns', async () => {
    const { lease, asked } = countingLease();
    const { answer, ends } = handleOn(lease);
    await answer(() => undefined);
    await ends.ran();
    expect(asked.finish).toEqual([null]);
    expect(asked.fail).toEqual([]);
  });

  it('a turn that stood down at the fence, its lease still its own, is handed back, not finished (finished, the turn would be lost)', async () => {
    const { lease, asked } = countingLease();
    const { answer, ends } = handleOn(lease);
    await answer(() => {
      throw new LeaseLostError('write: another copy holds the turn');
    });
    await ends.ran();
    expect(asked.fail).toEqual(['stood down at the fence']);
    expect(asked.finish).toEqual([]);
  });

  it('a listener that throws after its answer ends once, finished with its reply (before: finished by the handle, then failed by the runner, a second end)', async () => {
    const { lease, asked } = countingLease();
    const { answer, ends } = handleOn(lease);
    await answer(() => 'Deployed.');
    const [reply] = api.posts().filter((p) => p.params.text?.includes('Deployed.'));
    expect(asked.finish).toEqual([]);
    // Its own code after the answer throws (a module's listener): the answer is the turn's end, not a failure to retry.
    await ends.failed(new TypeError('after the answer'));
    expect(asked.finish).toEqual([(reply!.answer as { ts: string }).ts]);
    expect(asked.fail).toEqual([]);
    expect(ends.told).toEqual({ lookIn: [], dead: [] });
  });

  it('a turn lost to another copy is left to it: nothing is handed back, dead-lettered or told', async () => {
    const { lease, asked } = countingLease('dead');
    const { ends } = handleOn(lease);
    await ends.failed(new LeaseLostError('write'));
    expect(asked.fail).toEqual([]);
    expect(ends.told.dead).toEqual([]);
    expect(notes(DEAD_NOTE)).toBe(0);
  });

  it('a turn that threw a bug is dead-lettered through its lease and the person told once; the owner is told whose dead letter it is', async () => {
    const { lease, asked } = countingLease('dead', 2);
    const { ends, throwsThenEnds } = handleOn(lease);
    await throwsThenEnds(new TypeError('the bot read a field of undefined'));
    expect(ends.told.dead).toEqual([expect.objectContaining({ key: lease.key, attempts: 2 })]);
    expect(asked.fail).toHaveLength(1);
    await expect.poll(() => notes(DEAD_NOTE)).toBe(1);
  });

  it('a second failure is handed back for a retry and the person hears it is taking long, once; the store is looked at when it is due', async () => {
    const { lease, asked } = countingLease('retry', 2);
    const { ends, throwsThenEnds } = handleOn(lease);
    await throwsThenEnds(Object.assign(new Error('overloaded'), { status: 529 }));
    expect(ends.told.lookIn).toEqual([60_000]);
    expect(asked.fail).toHaveLength(1);
    await expect.poll(() => notes(RETRYING_NOTE)).toBe(1);
  });

  it('a turn past its deadline that could get no lease is a dead letter all the same: the owner and the person are told', async () => {
    const { ends, throwsThenEnds } = handleOn(undefined, { expired: true });
    await throwsThenEnds(new Error('the model call returned after the deadline'));
    // Past its deadline, whatever it threw is a deadline: another run would hang again.
    expect(ends.told.dead).toEqual([expect.objectContaining({ attempts: 1, reason: expect.stringMatching(/deadline|retry window/) })]);
    await expect.poll(() => notes(DEAD_NOTE)).toBe(1);
  });

  /** A follow-up in thread 5.1 that its conversation's bound skipped (lib/conversation says `skipped`). */
  const skipped = { team_id: 'T0AUTOHUB', event_id: 'Ev-end', event: { type: 'app_mention', channel: 'C0TEST', ts: '5.2', thread_ts: '5.1' } };

  it("a taken-over skipped turn finds its dead owner's note in the thread, posts none, and is finished with it (before: the taker-over posted the note a second time)", async () => {
    const { lease, asked } = countingLease();
    const { handle, client, ends } = handleOn({ ...lease, checkThreadFirst: true });
    // The dead owner posted the note (the post landed, the finish never did).
    const note = await client.chat.postMessage({ channel: 'C0TEST', thread_ts: '5.1', text: SKIPPED_NOTE, metadata: partMetadata('Ev-end', 0, true) });
    expect(await handle.answerSkipped(skipped)).toBe(note.ts);
    expect(api.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
    await ends.ran();
    expect(asked.finish).toEqual([note.ts]);
  });

  it('a first run of a skipped turn posts its note, final, without reading the thread (the read is only for a run that may have been answered)', async () => {
    const { lease, asked } = countingLease();
    const { handle, ends } = handleOn(lease);
    const ts = await handle.answerSkipped(skipped);
    expect(api.calls.map((c) => c.method)).toEqual(['chat.postMessage']);
    expect(api.calls[0]!.params).toMatchObject({ channel: 'C0TEST', thread_ts: '5.1', text: SKIPPED_NOTE });
    await ends.ran();
    expect(asked.finish).toEqual([ts]);
  });
});
