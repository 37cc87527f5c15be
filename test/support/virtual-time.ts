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
