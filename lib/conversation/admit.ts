/**
 * The runner's hook (TurnRunnerOptions.admit): a turn of a conversation waits
 * its turn at the gate before it takes a slot. A turn outside any
 * conversation (a command, an action), or without a claim key, runs at once.
 *
 * A turn whose claim failed open (timed out, no lease yet) still takes its
 * place under its claim key: a claim that timed out has most often landed
 * (the store was slow, not away), and its record orders it as any other.
 * Before, it ran at once, beside the turn before it; only a store
 * that does not answer the gate either (`unsureLooks` looks in a row) lets it
 * run unordered. It gets as many looks as any turn: a claim times out far
 * more often on a slow store than on one that is away (the drill on a loaded
 * machine: 1,818 claims failed open in four minutes, and with one look
 * each, 1,627 of those turns ran unordered).
 */
import { TurnInterruptedError } from '../errors/index.js';
import type { AdmitVerdict } from '../runner/index.js';
import type { ConversationGate } from './gate.js';
import { conversationOf } from './key.js';

/** What the hook reads of a turn (lib/receiver's Turn is one). */
export interface AdmittedTurn {
  delivery: { body: Record<string, unknown>; claimKeys?: readonly string[] };
  /**
   * The turn's fence (lib/turn/fence.ts): its lease (none: its claim failed open and is not confirmed yet), and its
   * signal, which follows the lease, one attached late too, and aborts when the claim turns out another's.
   */
  fence: { readonly lease?: { key: string } | undefined; readonly signal: AbortSignal };
  /** Its claim made its first look at the gate and let it run (alone in its conversation): the gate does not look. */
  claimAdmitted?: boolean | undefined;
  /** The turn's handle: a newer message of the thread interrupts it (`concurrency: 'interrupt'`). */
  handle?: { interrupt?(reason: Error): void } | undefined;
  logFields: Record<string, unknown>;
  /** How its claim went: one that failed open (the store did not answer) waits for one look at most. */
  claim?: string | undefined;
}

export function conversationAdmit(gate: ConversationGate) {
  /** Running turns watched for an interrupt (`interrupt`): the watch's stop, called when the turn ends. */
  const watching = new WeakMap<object, () => void>();
  return {
    admit: async (t: AdmittedTurn, stop: AbortSignal): Promise<AdmitVerdict> => {
      const conversation = conversationOf(t.delivery.body);
      const lease = t.fence.lease;
      const key = lease?.key ?? t.delivery.claimKeys?.[0];
      if (conversation === undefined || key === undefined) return { kind: 'run' };
      const signal = AbortSignal.any([stop, t.fence.signal]);
      const verdict = await gate.admit(conversation, key, signal, t.logFields, {
        admitted: t.claimAdmitted === true && lease !== undefined,
        ...(t.claim === 'fail-open' && lease === undefined ? { failedOpen: true } : {}),
      });
      if (verdict === 'run') {
        const handle = t.handle;
        if (gate.interrupts && handle?.interrupt) {
          const interrupt = handle.interrupt.bind(handle);
          watching.set(
            t.delivery,
            gate.watch(conversation, key, () => interrupt(new TurnInterruptedError()), t.logFields),
          );
        }
        return { kind: 'run' };
      }
      // Skipped past the bound: the turn's handle answers it with a short note (TurnHandle.answerSkipped).
      return { kind: verdict };
    },
    /** A turn ended (however): the turns waiting behind it here look again at once. */
    ended: (t: Pick<AdmittedTurn, 'delivery'>): void => {
      watching.get(t.delivery)?.();
      watching.delete(t.delivery);
      const conversation = conversationOf(t.delivery.body);
      if (conversation !== undefined) gate.ended(conversation);
    },
  };
}
