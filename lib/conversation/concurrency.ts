/**
 * What a message written while a turn of its conversation still runs does:
 * the bot module's `concurrency` export, checked once at start-up.
 *
 *   - `queue` (the default): it waits for that turn, in order, across the
 *     copies, and then runs knowing its answer (ctx.history()).
 *   - `parallel`: it runs at once, beside it (autohub before conversations
 *     were ordered).
 *   - `interrupt`: the running turn's `ctx.signal` aborts with a
 *     TurnInterruptedError, on whichever copy it runs; what it wrote is
 *     closed as interrupted and kept; then the newer message runs, knowing
 *     the earlier question and that partial answer (ctx.history()).
 */
export type Concurrency = 'queue' | 'parallel' | 'interrupt';

export const CONCURRENCY_MODES: readonly Concurrency[] = ['queue', 'parallel', 'interrupt'];

/** The module's export as a mode; a clear message for anything else. */
export function parseConcurrency(value: unknown): { ok: true; mode: Concurrency } | { ok: false; expected: string } {
  if (value === undefined) return { ok: true, mode: 'queue' };
  if (typeof value === 'string' && (CONCURRENCY_MODES as readonly string[]).includes(value)) return { ok: true, mode: value as Concurrency };
  return {
    ok: false,
    expected: `concurrency, when exported, to be one of ${CONCURRENCY_MODES.join(', ')}, but it is ${JSON.stringify(value) ?? typeof value}`,
  };
}
