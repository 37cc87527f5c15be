/**
 * One turn as the runner holds it, from its claim (or takeover) to its end,
 * and what its listener finds in Bolt's `context`.
 */
import type { ClaimKind, Role } from '../store/index.js';
import type { TurnFence, TurnHandle } from '../turn/index.js';
import type { Delivery } from '../delivery/index.js';
import type { TurnLease } from '../lease/index.js';
import type { AckGate } from './ack-gate.js';
import type { ClaimConfirm } from './claim-confirm.js';
import type { RunTrace } from '../telemetry/index.js';

/** Keys Bolt adds to every listener's `context`: no lease (a listener answers through the handle; the runner's TurnEnds alone ends a turn). */
export interface BoltTurnContext {
  autohubClaim: ClaimKind;
  autohubInstance: string;
  autohubRole: Role;
  autohubReceivedAt: number;
  /** The turn's handle: `answer(...)` runs the whole reply protocol. */
  autohubTurn?: TurnHandle;
}

/** What the admit hook decided: run the turn, answer it with the skip note (its conversation's bound passed it), or nothing (this copy lost it). */
export type AdmitVerdict = { kind: 'run' } | { kind: 'skipped' } | { kind: 'gone' };

export interface Turn {
  delivery: Extract<Delivery, { body: unknown }>;
  gate: AckGate;
  receivedAt: number;
  /** When Slack sent it, for a delivery the edge kept (its response_url lives 30 minutes from then). */
  arrivedAt?: number | undefined;
  /** A delivery the edge kept, injected by the drain, not yet ended (TurnRunner.keptRunning). */
  kept?: boolean | undefined;
  claim: ClaimKind;
  retry: { retryNum: number | undefined; retryReason: string | undefined };
  logFields: Record<string, unknown>;
  /** Its fence (lib/turn/fence.ts): its lease, attached late too, and whether this copy may still act for it. */
  fence: TurnFence<TurnLease>;
  /** Its claim made its first look at its conversation's gate and let it run (it was alone there): the gate does not look. */
  claimAdmitted?: boolean | undefined;
  handle?: TurnHandle | undefined;
  /** For a leased claim that failed open: the nonce its write carried, to confirm it once the store answers. */
  nonce?: string | undefined;
  /** The confirm of that claim while it is asked (lib/runner/claim-confirm.ts). */
  confirm?: ClaimConfirm | undefined;
  /** Its wait for its conversation (the admit hook), while it waits. */
  admitted?: Promise<void> | undefined;
  /** Frees the turn's slot (once), set when it starts. */
  free?: (() => void) | undefined;
  /** Its deadline passed (`ctx.signal` aborted); `cut`: its grace is over too and the runner ended it; `settled`: its work returned. */
  expired?: boolean | undefined;
  cut?: boolean | undefined;
  settled?: boolean | undefined;
  /** Its run's trace (lib/telemetry), when traces are exported. */
  trace?: RunTrace | undefined;
}

/** A turn past its deadline gets this long to return (5 s; less for a short retry window) before it is failed. */
export function deadlineGraceMs(windowMs: number): number {
  return Math.min(5_000, Math.max(200, Math.round(windowMs / 20)));
}
