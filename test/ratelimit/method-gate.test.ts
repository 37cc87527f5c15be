/**
 * MethodGate's decisions as a table, on virtual time: when each call of one
 * method goes out after what the gate was told (accepted answers, refusals
 * with Slack's Retry-After or our own default window).
 */
import { describe, expect, it } from 'vitest';
import { MethodGate } from '../../lib/ratelimit/index.js';
import { virtualTime } from '../support/virtual-time.js';

const T0 = 1_000_000;

type Told = { accepted: number } | { close: { reopenAt: number; windowMs: number; fromSlack?: boolean } };

interface Row {
  /** The bug the row would catch. */
  bug: string;
  /** What the gate is told, in order (times from T0). */
  told: Told[];
  /** When the calls are made (from T0); calls at the same time are made side by side. */
  callsAt: number;
  calls: number;
  /** When each goes out (from T0), in order. */
  sentAt: number[];
  /** What waitMs() says just before the calls are made. */
  waitMs: number;
}

const rows: Row[] = [
  { bug: 'an open gate delays or serializes calls', told: [], callsAt: 0, calls: 3, sentAt: [0, 0, 0], waitMs: 0 },
  {
    bug: 'a call goes out into a window Slack closed (a second 429)',
    told: [{ close: { reopenAt: 30_000, windowMs: 30_000 } }],
    callsAt: 0,
    calls: 1,
    sentAt: [30_000],
    waitMs: 30_000,
  },
  {
    bug: 'the callers queued behind a window all go at its reopening and land in the next window',
    told: [{ close: { reopenAt: 1_000, windowMs: 1_000 } }],
    callsAt: 0,
    calls: 3,
    // Paced one window apart (1,000 x 1.02 + 1 ms of margin).
    sentAt: [1_000, 2_021, 3_042],
    waitMs: 1_000,
  },
  {
    bug: "Retry-After read as the window's length instead of the time left in it (the pace too short)",
    // Accepted at 0, refused at 400 with 600 ms left: the window is 1,000 ms long.
    told: [{ accepted: 0 }, { close: { reopenAt: 1_000, windowMs: 600 } }],
    callsAt: 400,
    calls: 2,
    sentAt: [1_000, 2_021],
    waitMs: 600,
  },
  {
    bug: 'an accepted call long before the refusal taken for the start of its window (the pace far too long)',
    told: [{ accepted: 0 }, { close: { reopenAt: 6_000, windowMs: 1_000 } }],
    callsAt: 5_000,
    calls: 2,
    sentAt: [6_000, 7_021],
    waitMs: 1_000,
  },
  {
    bug: 'a 30 s window spaces every later call 30 s apart (the pace is capped at 2 s)',
    told: [{ close: { reopenAt: 30_000, windowMs: 30_000 } }],
    callsAt: 0,
    calls: 2,
    sentAt: [30_000, 32_041],
    waitMs: 30_000,
  },
  {
    bug: "our own default window (Slack named none) slows the method's later calls",
    told: [{ close: { reopenAt: 1_000, windowMs: 1_000, fromSlack: false } }],
    callsAt: 0,
    calls: 2,
    sentAt: [1_000, 1_000],
    waitMs: 1_000,
  },
  {
    bug: 'pacing never ends: a method quiet for 10 s after its window is still spaced out',
    told: [{ close: { reopenAt: 1_000, windowMs: 1_000 } }],
    callsAt: 1_000 + 10_000,
    calls: 2,
    sentAt: [11_000, 11_000],
    waitMs: 0,
  },
  {
    bug: 'a later, shorter refusal reopens the window early',
    told: [{ close: { reopenAt: 5_000, windowMs: 5_000 } }, { close: { reopenAt: 2_000, windowMs: 2_000 } }],
    callsAt: 0,
    calls: 1,
    sentAt: [5_000],
    waitMs: 5_000,
  },
];

describe('MethodGate', () => {
  it.each(rows)('$bug', async ({ told, callsAt, calls, sentAt, waitMs }) => {
    const clock = virtualTime(T0);
    const gate = new MethodGate({ now: clock.now, sleep: clock.sleep });
    for (const t of told) {
      if ('accepted' in t) gate.accepted(T0 + t.accepted);
      else gate.close(T0 + t.close.reopenAt, t.close.windowMs, t.close.fromSlack);
    }
    clock.advance(callsAt);
    expect(gate.waitMs()).toBe(waitMs);
    const sent: number[] = [];
    await Promise.all(
      Array.from({ length: calls }, () =>
        gate.pass(
          async () => void sent.push(clock.now() - T0),
          () => {},
        ),
      ),
    );
    expect(sent).toEqual(sentAt);
  });

  it('tells the caller how long it is about to wait, so a call can refuse a wait past its budget', async () => {
    const clock = virtualTime(T0);
    const gate = new MethodGate({ now: clock.now, sleep: clock.sleep });
    gate.close(T0 + 3_000, 3_000);
    const told: number[] = [];
    await gate.pass(
      async () => {},
      (ms) => told.push(ms),
    );
    expect(told).toEqual([3_000]);
  });
});
