/** A clock that only moves when someone sleeps: a 30 s window costs no real time. */
export function virtualTime(start = Date.now()) {
  let t = start;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += Math.max(0, ms);
      await Promise.resolve();
    },
    advance: (ms: number) => {
      t += ms;
    },
    slept,
  };
}

/**
 * A clock with timers that fire only when the test moves it (`advance`):
 * the thinking status's 90 s refresh, across a 130 s turn, in no real time.
 */
export function manualClock(start = Date.now()) {
  let t = start;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => t,
    after: (ms: number, fn: () => void) => {
      const id = ++seq;
      due.set(id, { at: t + Math.max(0, ms), fn });
      return () => void due.delete(id);
    },
    /** Move the clock on, firing every timer that falls due on the way, in order. */
    advance: (ms: number) => {
      const until = t + ms;
      for (;;) {
        const next = [...due].filter(([, d]) => d.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        due.delete(next[0]);
        t = Math.max(t, next[1].at);
        next[1].fn();
      }
      t = until;
    },
    get pending() {
      return due.size;
    },
  };
}
