/**
 * What must hold after a deploy. Pure: the answers in, the failures out, one
 * line each.
 */
import type { HealthAnswer, ProbeAnswer } from './probe.js';

export interface VerifyAnswers {
  edgeHealth: HealthAnswer;
  hubHealth?: HealthAnswer;
  cloudHealth?: HealthAnswer;
  /** A first delivery through the edge, then Slack's retry of it. */
  edgeFirst: ProbeAnswer;
  edgeRetry: ProbeAnswer;
  /** Straight to the hub, then its retry straight to the cloud copy (must be a duplicate). */
  hubFirst?: ProbeAnswer;
  cloudRetryOfHub?: ProbeAnswer;
  /** A first delivery straight to the cloud copy: the cloud leg really serves. */
  cloudFirst?: ProbeAnswer;
}

const accepted = (status: ProbeAnswer['status']) => typeof status === 'number' && status >= 200 && status < 300;
const said = (status: ProbeAnswer['status']) => (typeof status === 'number' ? `HTTP ${status}` : status);

export function verifyFailures(a: VerifyAnswers): string[] {
  const failures: string[] = [];
  const healthy = (name: string, h: HealthAnswer | undefined) => {
    if (!h) return;
    if (h.status !== 200) failures.push(`${name}: health answered ${said(h.status)} at ${h.target}/slack/health`);
    const store = h.body?.store as { ok?: unknown; kind?: unknown } | undefined;
    if (store?.ok === false) failures.push(`${name}: cannot reach its claim store (${String(store.kind)}); claims fail open and replies may double`);
    if (store?.kind === 'memory') failures.push(`${name}: uses an in-process store, so nothing is shared with the other copy`);
  };
  const probe = (name: string, p: ProbeAnswer | undefined, want: 'claimed' | 'duplicate', why: string) => {
    if (!p) return;
    if (!accepted(p.status)) failures.push(`${name}: ${p.what} was not accepted (${said(p.status)})`);
    else if (p.claim !== want) failures.push(`${name}: ${p.what} was answered "${p.claim}", not "${want}"; ${why}`);
  };
  healthy('edge', a.edgeHealth);
  healthy('hub', a.hubHealth);
  healthy('cloud', a.cloudHealth);
  // The edge seals what it keeps with one key; a copy that does not hold it drops every kept delivery unopened.
  const sealing = (a.edgeHealth.body?.inbox as { store_key_id?: unknown } | undefined)?.store_key_id;
  for (const [name, h] of [
    ['hub', a.hubHealth],
    ['cloud', a.cloudHealth],
  ] as const) {
    const ids = h?.body?.store_key_ids;
    if (typeof sealing !== 'string' || !Array.isArray(ids)) continue;
    if (!ids.includes(sealing))
      failures.push(
        `${name}: cannot open what the edge keeps (the edge seals with store key ${sealing}, this copy holds ${ids.join(', ') || 'none'}): give the Worker and the copies one AUTOHUB_STORE_KEY (or one SLACK_SIGNING_SECRET without it)`,
      );
  }
  probe('edge', a.edgeFirst, 'claimed', 'a first delivery must be claimed by one copy');
  probe('edge', a.edgeRetry, 'duplicate', 'a retry must never run a turn twice');
  probe('hub', a.hubFirst, 'claimed', 'the hub must claim a first delivery');
  // The shared store is proven only by a retry of a delivery the hub did claim: with the hub down, the cloud
  // rightly claims it afresh, and that says nothing about the store (a hub down is not a store split).
  if (a.hubFirst && accepted(a.hubFirst.status) && a.hubFirst.claim === 'claimed')
    probe('cloud', a.cloudRetryOfHub, 'duplicate', 'the copies do not share one claim store');
  else if (a.cloudRetryOfHub)
    failures.push('cloud: whether the copies share one claim store was not checked: the hub did not claim the first delivery (see the hub line)');
  probe('cloud', a.cloudFirst, 'claimed', 'the cloud leg must really serve');
  return failures;
}
