/**
 * The runner's hook (TurnRunnerOptions.admit): a turn of a conversation waits
 * its turn at the gate before it takes a slot. A turn outside any
 * conversation (a command, an action), or without a lease (its claim failed
 * open: the store is away and cannot order it), runs at once.
 */
import type { WebClient } from '@slack/web-api';
import { partMetadata } from '../turn/parts.js';
import { threadOf } from '../turn/request.js';
import type { ConversationGate } from './gate.js';
import { conversationOf } from './key.js';
import { SKIPPED_NOTE } from './gate.js';

/** What the hook reads of a turn (lib/receiver's Turn is one). */
export interface AdmittedTurn {
  delivery: { body: Record<string, unknown> };
  lease?: { key: string; signal: AbortSignal } | undefined;
  handle?: { client: WebClient } | undefined;
  logFields: Record<string, unknown>;
}

/** What the runner does next: run the turn, finish it (answered here, `ts` of the reply), or nothing (this copy lost it). */
export type AdmitVerdict = { kind: 'run' } | { kind: 'answered'; ts: string | null } | { kind: 'gone' };

export function conversationAdmit(gate: ConversationGate) {
  return {
    admit: async (t: AdmittedTurn, stop: AbortSignal): Promise<AdmitVerdict> => {
      const conversation = conversationOf(t.delivery.body);
      const lease = t.lease;
      if (conversation === undefined || lease === undefined) return { kind: 'run' };
      const signal = AbortSignal.any([stop, lease.signal]);
      const verdict = await gate.admit(conversation, lease.key, signal, t.logFields);
      if (verdict === 'run') return { kind: 'run' };
      if (verdict === 'gone') return { kind: 'gone' };
      // Skipped past the bound: the note is this turn's reply, tagged final, so a takeover's thread check finds it answered.
      const event = t.delivery.body.event as { channel: string; ts: string; thread_ts?: string };
      const eventId = String(t.delivery.body.event_id ?? '');
      const client = t.handle?.client;
      if (!client) return { kind: 'run' };
      const posted = await client.chat.postMessage({
        channel: event.channel,
        thread_ts: threadOf(event),
        text: SKIPPED_NOTE,
        metadata: partMetadata(eventId, 0, true),
      });
      return { kind: 'answered', ts: posted.ts ?? null };
    },
    /** A turn ended (however): the turns waiting behind it here look again at once. */
    ended: (t: Pick<AdmittedTurn, 'delivery'>): void => {
      const conversation = conversationOf(t.delivery.body);
      if (conversation !== undefined) gate.ended(conversation);
    },
  };
}
