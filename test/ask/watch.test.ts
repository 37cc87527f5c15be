/**
 * The deadline watch, lazy (lib/ask/watch.ts): a copy that knows of no parked question reads the deadlines once
 * at start and then sends nothing (once, 144 reads a day a copy for a bot that never asked); it reads again when
 * the other copy may have left it a question (the peer lost, a failover), and while it knows of one waiting.
 */
import { describe, expect, it } from 'vitest';
import type { WebClient } from '@slack/web-api';
import { silentLogger } from '../../lib/log/index.js';
import { ASK_DEADLINES_KEY, askKey, QuestionWatch, type QuestionRecord } from '../../lib/ask/index.js';
import { manualClock } from '../support/virtual-time.js';

const DAY_MS = 24 * 3_600_000;
const EVERY_MS = 600_000;
const T0 = Date.UTC(2026, 11, 6, 9);

/** Lets the watch's awaited store calls settle. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

function rig(o: { ready?: Promise<unknown>; keptRunning?: () => boolean } = {}) {
  const clock = manualClock(T0);
  const list: string[] = [];
  const records = new Map<string, string>();
  const calls = { range: 0, read: 0 };
  const injected: Array<Record<string, unknown>> = [];
  const store = {
    range: async (key: string) => {
      calls.range += 1;
      return key === ASK_DEADLINES_KEY ? [...list] : [];
    },
    read: async (key: string) => {
      calls.read += 1;
      return records.get(key) ?? null;
    },
  };
  const watch = new QuestionWatch({
    store,
    client: {} as WebClient,
    log: silentLogger,
    now: clock.now,
    after: clock.after,
    everyMs: EVERY_MS,
    ...(o.ready ? { ready: o.ready } : {}),
    ...(o.keptRunning ? { keptRunning: o.keptRunning } : {}),
    inject: async (envelope) => {
      injected.push(envelope);
      return 'claimed';
    },
  });
  /** A question parked (by either copy): its record and its deadline listed, as parkTurn keeps them. A sleep: no message to update. */
  const park = (qid: string, deadline: number) => {
    const record: QuestionRecord = {
      qid,
      eventId: `Ev-${qid}`,
      channel: 'C1',
      ts: '',
      text: '',
      choices: [],
      from: [],
      deadline,
      envelope: { event_id: `Ev-${qid}`, event: { type: 'app_mention' } },
      resume: { eventId: `Ev-${qid}`, answers: [], keys: [], type: 'app_mention' },
    };
    records.set(askKey(qid), JSON.stringify(record));
    list.unshift(`${deadline}|${qid}`);
  };
  const advance = async (ms: number) => {
    clock.advance(ms);
    await settle();
  };
  return { clock, watch, calls, injected, park, advance };
}

describe('the deadline watch, lazy', () => {
  it('reads once at start and holds no timer when no question is parked: a day costs no further command', async () => {
    const r = rig();
    r.watch.start();
    await settle();
    expect(r.calls.range).toBe(1);
    await r.advance(DAY_MS);
    expect(r.calls).toEqual({ range: 1, read: 0 });
    expect(r.clock.pending).toBe(0);
  });

  it('times out a question this copy parked at its deadline, then stops reading', async () => {
    const r = rig();
    r.watch.start();
    await settle();
    r.park('q1', T0 + 25 * 60_000);
    r.watch.noted('q1', T0 + 25 * 60_000);
    await r.advance(25 * 60_000);
    expect(r.injected.map((e) => e.event_id)).toEqual(['Ev-ask-q1']);
    const after = { ...r.calls };
    await r.advance(DAY_MS);
    expect(r.calls).toEqual(after);
    expect(r.clock.pending).toBe(0);
  });

  it("learns of the other copy's question when the peer is lost, and times it out at its deadline", async () => {
    const r = rig();
    r.watch.start();
    await settle();
    // The hub parks a question after this copy's start read, then dies.
    r.park('q2', T0 + 90 * 60_000);
    await r.advance(30 * 60_000);
    expect(r.calls.range).toBe(1);
    r.watch.look();
    await settle();
    expect(r.calls.range).toBe(2);
    expect(r.watch.size).toBe(1);
    await r.advance(60 * 60_000);
    expect(r.injected.map((e) => e.event_id)).toEqual(['Ev-ask-q2']);
    expect(r.clock.pending).toBe(0);
  });

  it('reads at most once a gap on failovers (one each delivery the edge fails over)', async () => {
    const r = rig();
    r.watch.start();
    await settle();
    for (let i = 0; i < 5; i++) {
      r.watch.look(true);
      await settle();
    }
    expect(r.calls.range).toBe(1);
    await r.advance(EVERY_MS);
    r.watch.look(true);
    await settle();
    expect(r.calls.range).toBe(2);
  });

  it('forgets a question answered by a click here: no timer left, nothing timed out', async () => {
    const r = rig();
    r.watch.start();
    await settle();
    r.park('q3', T0 + 60 * 60_000);
    r.watch.noted('q3', T0 + 60 * 60_000);
    expect(r.clock.pending).toBe(1);
    r.watch.answered('q3');
    expect(r.clock.pending).toBe(0);
    await r.advance(DAY_MS);
    expect(r.injected).toEqual([]);
    expect(r.calls).toEqual({ range: 1, read: 0 });
  });

  it('times out a question whose deadline passed while the copy was down only once the clicks kept meanwhile are taken', async () => {
    let taken: () => void = () => {};
    const r = rig({ ready: new Promise<void>((resolve) => (taken = resolve)) });
    // Parked before the outage; its deadline passed while both copies were down.
    r.park('q4', T0 - 60_000);
    r.watch.start();
    await r.advance(1000);
    expect(r.calls.range).toBe(1);
    expect(r.injected).toEqual([]);
    // The start drain has run the kept clicks (one of them may have answered q4): now the deadline may take it.
    taken();
    await settle();
    expect(r.injected.map((e) => e.event_id)).toEqual(['Ev-ask-q4']);
  });

  it('holds a due timeout while kept deliveries are still running here (the drill at 1,000: 13 clicks made in time lost to their deadline behind the drain)', async () => {
    let running = true;
    const r = rig({ keptRunning: () => running });
    r.park('q5', T0 + 5_000);
    r.watch.start();
    await r.advance(5_000);
    await r.advance(3_000);
    expect(r.injected).toEqual([]);
    // The drain's deliveries have ended (a click among them would have answered q5): the deadline takes it a second on.
    running = false;
    await r.advance(1_000);
    expect(r.injected.map((e) => e.event_id)).toEqual(['Ev-ask-q5']);
  });
});
