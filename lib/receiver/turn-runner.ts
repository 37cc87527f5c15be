/**
 * Running turns through Bolt: the ack (events at once, commands when their
 * listener acks or at the ack deadline), the lease's renewal and release,
 * and the set of turns in flight that a shutdown drains.
 */
import type { App } from '@slack/bolt';
import type { ClaimKind, ClaimStore, LeaseSettings, Takeover } from '../store/index.js';
import type { Role } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { Delivery } from '../slack/index.js';
import { AckGate } from './ack-gate.js';
import { TurnLease } from './turn-lease.js';

/** Keys Bolt adds to every listener's `context`. */
export interface TurnContext {
  autohubClaim: ClaimKind;
  autohubInstance: string;
  autohubRole: Role;
  autohubReceivedAt: number;
  /** The turn's lease, when it holds one: commit before posting, finish after. */
  autohubLease?: TurnLease;
}

export interface TurnRunnerOptions {
  store: ClaimStore;
  role: Role;
  instance: string;
  log: Logger;
  ackDeadlineMs: number;
  lease?: LeaseSettings | undefined;
  onTurn?: ((turn: { ackMs: number; claim: ClaimKind; eventType: string | undefined }) => void) | undefined;
  now: () => number;
}

export interface Turn {
  delivery: Extract<Delivery, { body: unknown }>;
  gate: AckGate;
  receivedAt: number;
  claim: ClaimKind;
  retry: { retryNum: number | undefined; retryReason: string | undefined };
  logFields: Record<string, unknown>;
  lease?: TurnLease | undefined;
}

export class TurnRunner {
  app: App | undefined;
  readonly #turns = new Set<Promise<void>>();

  constructor(private readonly o: TurnRunnerOptions) {}

  get inFlight(): number {
    return this.#turns.size;
  }

  /** Resolves when every turn running now has ended. */
  async drained(): Promise<void> {
    await Promise.allSettled([...this.#turns]);
  }

  /**
   * Run a turn taken over from a copy whose lease lapsed: the same listeners,
   * on the stored body, under the new token. Nobody waits for an ack.
   */
  resume(takeover: Takeover): void {
    const { o } = this;
    if (!o.lease) return;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(takeover.body) as Record<string, unknown>;
    } catch {
      o.log.error('lease.takeover_unreadable', { key: takeover.key });
      return;
    }
    const lease = new TurnLease(o.store, takeover.key, takeover.token, o.lease, o.log, takeover.state);
    const logFields = { kind: 'event', eventId: body.event_id, claim: 'claimed', takeover: takeover.state, token: takeover.token };
    o.log.info('lease.takeover', { ...logFields, key: takeover.key });
    this.run({
      delivery: { kind: 'event', body, eventId: String(body.event_id ?? ''), teamId: undefined, claimKeys: [takeover.key] },
      gate: AckGate.detached(),
      receivedAt: o.now(),
      claim: 'claimed',
      retry: { retryNum: undefined, retryReason: undefined },
      logFields,
      lease,
    });
  }

  run(t: Turn): void {
    const { o } = this;
    const { delivery, gate, receivedAt, claim, retry, logFields, lease } = t;
    const claimHeader = { 'x-autohub-claim': logFields.claim as string };
    // Events carry nothing in their ack: answer now and let the turn run after.
    if (delivery.kind === 'event') gate.answer(200, undefined, claimHeader);
    const deadline = setTimeout(() => {
      if (gate.answer(200, undefined, { ...claimHeader, 'x-autohub-ack': 'deadline' })) {
        o.log.warn('delivery.ack_deadline', { ...logFields, ackDeadlineMs: o.ackDeadlineMs });
      }
    }, Math.max(0, o.ackDeadlineMs - (o.now() - receivedAt)));
    void gate.done.then(() => {
      clearTimeout(deadline);
      // A taken-over turn was acked long ago by the copy that died.
      if (lease?.previousState !== undefined) return;
      const ackMs = o.now() - receivedAt;
      o.log.info('delivery.acked', { ...logFields, ackMs });
      if (delivery.kind === 'event') {
        const eventType = (delivery.body.event as { type?: unknown } | undefined)?.type;
        o.onTurn?.({ ackMs, claim, eventType: typeof eventType === 'string' ? eventType : undefined });
      }
    });

    const context: TurnContext = {
      autohubClaim: claim,
      autohubInstance: o.instance,
      autohubRole: o.role,
      autohubReceivedAt: receivedAt,
      ...(lease ? { autohubLease: lease } : {}),
    };
    lease?.start();
    const turn = (async () => {
      if (!this.app) throw new Error('FailoverReceiver.init(app) was not called');
      await this.app.processEvent({
        body: delivery.body,
        retryNum: retry.retryNum,
        retryReason: retry.retryReason,
        customProperties: { ...context },
        ack: async (response?: unknown) => {
          gate.answer(200, response ?? undefined, claimHeader);
        },
      });
    })()
      .catch((error: unknown) => {
        o.log.error('turn.failed', { ...logFields, error });
        gate.answer(500, undefined, claimHeader);
      })
      // A turn that ended without posting (nothing to say, or it failed) is over all the same.
      .then(() => lease?.finish(null))
      .finally(() => {
        clearTimeout(deadline);
        lease?.stop();
        this.#turns.delete(turn);
      });
    this.#turns.add(turn);
  }
}
