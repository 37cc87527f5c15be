/**
 * The runner's slots (lib/runner/slots.ts): a freed slot goes to the turn
 * that has waited longest, once, and only after the freed turn's end is told
 * (the runner's `ended` hook sees its slot out of the count and the next
 * turn not yet started). Turns here are plain names: the slots know nothing
 * else of them.
 */
import { describe, expect, it } from 'vitest';
import { Slots } from '../../lib/runner/slots.js';

/** Slots of `max` whose turns are names: each started turn holds its slot until `free(name)`. */
function slotsOf(max: number) {
  const started: string[] = [];
  const ended: string[] = [];
  const frees = new Map<string, () => void>();
  let slotFree = 0;
  const slots: Slots<string> = new Slots<string>({
    max,
    start: (t) => {
      started.push(t);
      frees.set(
        t,
        slots.hold(() => ended.push(`${t}: ${slots.inFlight} running, ${slots.queued} waiting, ${started.length} started`)),
      );
    },
    slotFree: () => (slotFree += 1),
  });
  return { slots, started, ended, free: (t: string) => frees.get(t)!(), slotFree: () => slotFree };
}

describe('Slots', () => {
  it('a freed slot starts the oldest waiting turn, not the newest', () => {
    const { slots, started, free } = slotsOf(1);
    for (const t of ['a', 'b', 'c']) slots.take(t);
    expect(started).toEqual(['a']);
    expect([slots.inFlight, slots.queued, slots.capacity]).toEqual([1, 2, 0]);
    free('a');
    expect(started).toEqual(['a', 'b']);
    free('b');
    expect(started).toEqual(['a', 'b', 'c']);
  });

  it("a turn's end is told with its slot out of the count and before the next turn starts in it", () => {
    const { slots, ended, free } = slotsOf(1);
    slots.take('a');
    slots.take('b');
    free('a');
    expect(ended).toEqual(['a: 0 running, 1 waiting, 1 started']);
    expect([slots.inFlight, slots.queued]).toEqual([1, 0]);
  });

  it('a slot freed twice is freed once: one waiting turn starts, and slotFree is told only when none waits', () => {
    const { slots, started, free, slotFree } = slotsOf(1);
    for (const t of ['a', 'b', 'c']) slots.take(t);
    free('a');
    free('a');
    expect(started).toEqual(['a', 'b']);
    expect(slotFree()).toBe(0);
    free('b');
    free('c');
    expect(slotFree()).toBe(1);
    expect([slots.inFlight, slots.queued, slots.capacity]).toEqual([0, 0, 1]);
  });

  it("a turn a person waits on (a click, a command) takes the next slot ahead of mentions waiting longer, oldest first among such (before: a click waited behind a queue of mentions past its question's timeout)", () => {
    const { slots, started, free } = slotsOf(1);
    slots.take('mention-1');
    slots.take('mention-2');
    slots.take('click-1', { first: true });
    slots.take('click-2', { first: true });
    expect([slots.queued, slots.waits('click-2')]).toEqual([3, true]);
    free('mention-1');
    free('click-1');
    free('click-2');
    expect(started).toEqual(['mention-1', 'click-1', 'click-2', 'mention-2']);
  });

  it('hands its waiting turns back at once, and drains when the last running turn frees its slot', async () => {
    const { slots, started, free } = slotsOf(1);
    for (const t of ['a', 'b', 'c']) slots.take(t);
    expect(slots.waits('b')).toBe(true);
    expect(slots.takeWaiting()).toEqual(['b', 'c']);
    expect(slots.waits('b')).toBe(false);
    let drained = false;
    const done = slots.drained().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    free('a');
    await done;
    expect(started).toEqual(['a']);
  });
});
