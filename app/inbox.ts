/**
 * The copy's drain of the edge's inbox (lib/inbox), built from the copy's
 * config: the shared store's REST settings, the store key (the same one the
 * edge seals with), and the runner, which gives every kept delivery the life
 * of a live one.
 *
 * A kept mention is injected as a catch-up find (answered late, in its
 * thread). A kept slash command or interaction is injected as what it is: it
 * is claimed under the same key as a live one (its trigger_id), so one a copy
 * also took live, or that two copies drain at once, runs once; it is leased,
 * so a listener that fails for a passing reason is retried, and one that
 * fails for good is a dead letter, listed and told; and what it answers goes
 * to its response_url while Slack keeps it (30 minutes, 5 uses), else to the
 * person by DM (lib/runner/late-answers.ts).
 */
import type { AppConfig } from '../lib/config/index.js';
import { createInboxStore, InboxDrainer } from '../lib/inbox/index.js';
import type { Logger } from '../lib/log/index.js';
import type { OwnerLine } from './listeners/announce.js';
import { FORM_KIND_FIELD, parseDelivery } from '../lib/delivery/index.js';
import type { NoticeRecord } from '../lib/notice/index.js';
import type { ClaimKind } from '../lib/store/index.js';
import { createSealer, noticeStatusKey, type Records } from '../lib/store/index.js';

/** An outage's marks outlive any outage the inbox can hold (24 h by default), and then lapse. */
const MARK_S = 48 * 3_600;
const OUTAGE_KEY = 'autohub:inbox:outage';
const ENDING_KEY = 'autohub:inbox:outage-ending';
/** Refusals of a full inbox told, by their count (the owner hears of each new count once, across the copies). */
const REFUSED_TOLD_KEY = 'autohub:inbox:refused-told';

/** The status page keeps a notice two days (lib/notice/owner-notices.ts). */
const NOTICE_TTL_S = 2 * 24 * 60 * 60;

/**
 * An outage marked once across the copies (the first to drain it tells the owner how many are kept), and ended
 * once (the one that takes the end tells them all are answered), so the next outage is told again.
 */
export function outageMarks(records: Pick<Records, 'lock' | 'unlock' | 'read'>, instance: string, now: () => number) {
  return {
    async mark(size: number): Promise<'first' | 'marked' | undefined> {
      const taken = await records.lock(OUTAGE_KEY, MARK_S, `${instance}|${now()}|${size}`);
      return taken === undefined ? undefined : taken ? 'first' : 'marked';
    },
    async end(): Promise<number | undefined> {
      const mine = `${instance}|${now()}`;
      if ((await records.lock(ENDING_KEY, 60, mine)) !== true) return undefined;
      try {
        const held = await records.read(OUTAGE_KEY);
        if (typeof held !== 'string') return undefined;
        await records.unlock(OUTAGE_KEY, held);
        return Number(held.split('|')[2] ?? 0);
      } finally {
        await records.unlock(ENDING_KEY, mine);
      }
    },
  };
}

export function buildInboxDrainer(o: {
  config: Pick<AppConfig, 'upstash' | 'sealKeys' | 'signingSecret' | 'instance' | 'role' | 'inboxMaxAgeMs'>;
  runner: { inject(envelope: Record<string, unknown>, options?: { kept?: { arrivedAt: number } }): Promise<ClaimKind | string> };
  /** The copy's shared store: the outage's marks, and its notices. */
  store: Pick<Records, 'lock' | 'unlock' | 'read' | 'note'>;
  /** How the owners are told (app/listeners/announce.ts). */
  line: OwnerLine;
  log: Logger;
  now?: () => number;
  fetch?: typeof fetch;
  checkEveryMs?: number;
}): InboxDrainer | undefined {
  const { upstash, sealKeys } = o.config;
  if (!upstash || !sealKeys) return undefined;
  const now = o.now ?? Date.now;
  // The edge's age bound, applied at the drain's read too: an entry past it that no later write reached is dropped, counted.
  const inbox = createInboxStore({ url: upstash.url, token: upstash.token, maxAgeMs: o.config.inboxMaxAgeMs, ...(o.fetch ? { fetch: o.fetch } : {}) });
  const sealer = createSealer(sealKeys.current, sealKeys.previous);
  const marks = outageMarks(o.store, o.config.instance, now);
  // Told by the owner line: a DM each (awaited, as before: the drain's word comes before its answers) and the alert URL (queued).
  const tellOwner = (text: string) => o.line.tell(text, 'edge_inbox', { sent: 'owner.told', failed: 'owner.tell_failed' }, { what: 'edge_inbox' });
  /** The outage on the status page's owner notices, beside the DM (its notes are told once an outage, not once an hour). */
  const noteOutage = (count: number, detail: string) => {
    const record: NoticeRecord = { cause: 'edge_inbox', at: new Date(now()).toISOString(), count, detail, instance: o.config.instance };
    return o.store.note(noticeStatusKey('edge_inbox'), JSON.stringify(record), NOTICE_TTL_S);
  };
  return new InboxDrainer({
    store: inbox,
    open: (sealed) => sealer.open(sealed),
    signingSecret: o.config.signingSecret,
    injectEvent: (envelope) => o.runner.inject(envelope),
    tellOwner,
    markOutage: async (size) => {
      const mark = await marks.mark(size);
      if (mark === 'first') await noteOutage(size, `${size} deliveries kept, being answered late`);
      return mark;
    },
    endOutage: async () => {
      const size = await marks.end();
      if (size !== undefined) await noteOutage(size, `all ${size} kept deliveries taken up`);
      return size;
    },
    refusedFirst: async (refused) => {
      const first = (await o.store.lock(`${REFUSED_TOLD_KEY}:${refused}`, MARK_S, `${o.config.instance}|${now()}`)) === true;
      if (first) await noteOutage(refused, `${refused} deliveries refused while the inbox was full`);
      return first;
    },
    log: o.log,
    now,
    ...(o.checkEveryMs !== undefined ? { checkEveryMs: o.checkEveryMs } : {}),
    runForm: async (kept, kind) => {
      let delivery: ReturnType<typeof parseDelivery>;
      try {
        delivery = parseDelivery(kept.headers['content-type'], kept.body);
      } catch {
        return 'dropped';
      }
      if (delivery.kind !== 'command' && delivery.kind !== 'interactive') return 'dropped';
      // The same life as a live one: claimed under its trigger_id (a copy that took it live, or drains it too, has
      // it: a duplicate here), leased, run with nobody reading its ack (its answers go to the response_url while
      // Slack keeps it, else by DM), and ended once: finished, retried when its listener fails for a passing
      // reason, or a dead letter, listed and told. Nobody waits on it: a claim the store did not answer is left.
      const claim = await o.runner.inject({ ...delivery.body, [FORM_KIND_FIELD]: delivery.kind }, { kept: { arrivedAt: kept.arrivedAt } });
      o.log.info('inbox.ran', { kind, claim, late: true });
      return claim === 'claimed' ? 'ran' : claim === 'duplicate' ? 'duplicate' : 'retry';
    },
  });
}
