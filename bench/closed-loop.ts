/**
 * Closed-loop load: `concurrency` senders, each sending its next request as
 * soon as its last was answered, until every request is sent. Each answer's
 * time is kept (the ack as the client sees it) and every status but 200 is a failure.
 */
export interface ClosedLoopRun {
  /** Each request's round trip, in ms, in the order they ended. */
  samples: number[];
  failures: number;
  /** From the first send to the last answer. */
  seconds: number;
}

export async function closedLoop<T>(requests: readonly T[], concurrency: number, send: (request: T) => Promise<number>): Promise<ClosedLoopRun> {
  const samples: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const t = performance.now();
        const status = await send(r);
        samples.push(performance.now() - t);
        if (status !== 200) failures += 1;
      }
    }),
  );
  return { samples, failures, seconds: (performance.now() - started) / 1000 };
}
