/**
 * The copy's drain of the edge's inbox (lib/inbox), built from the copy's
 * config: the shared store's REST settings, the store key (the same one the
 * edge seals with), the receiver's catch-up entry for kept mentions, the
 * copy's claim store for kept slash commands and interactions, and the Bolt
 * app that runs them.
 *
 * A kept slash command or interaction is claimed under the same key as a
 * live one (its trigger_id: lib/receiver/delivery.ts), so one a copy also
 * took live, or that two copies drain at once, runs once. Its listener runs
 * as a live one would; what it acks goes to its response_url while that is
 * valid (Slack: 30 minutes, up to 5 uses), else, and whenever the
 * response_url refuses it (expired or used up), to the person by DM. A kept
 * interaction runs its listener with its response_url; past the 30 minutes
 * the owner is told once an outage.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { AppConfig } from '../lib/config/index.js';
import { createInboxStore, InboxDrainer, type KeptDelivery } from '../lib/inbox/index.js';
import type { Logger } from '../lib/log/index.js';
import type { OwnerLine } from './listeners/announce.js';
import { parseDelivery } from '../lib/delivery/index.js';
import type { NoticeRecord } from '../lib/notice/index.js';
import { createSealer, noticeStatusKey, type Claims, type Records } from '../lib/store/index.js';

/** Slack: a response_url may be used up to 5 times within 30 minutes. */
export const RESPONSE_URL_MS = 30 * 60_000;
/** An outage's marks outlive any outage the inbox can hold (24 h by default), and then lapse. */
const MARK_S = 48 * 3_600;
const OUTAGE_KEY = 'autohub:inbox:outage';
const ENDING_KEY = 'autohub:inbox:outage-ending';
const EXPIRED_KEY = 'autohub:inbox:expired-told';

/** The status page keeps a notice two days (lib/notice/owner-notices.ts). */
const NOTICE_TTL_S = 2 * 24 * 60 * 60;

/** The DM a kept command's answer becomes when its response_url cannot take it: it names the command the person ran. */
export function lateCommandText(command: string, text: string, answer: string): string {
  return `(late, for your ${`${command} ${text}`.trim()}) ${answer}`;
}

function formBody(kept: KeptDelivery): Record<string, unknown> {
  const form = new URLSearchParams(kept.body);
  const payload = form.get('payload');
  if (payload !== null) return JSON.parse(payload) as Record<string, unknown>;
  return Object.fromEntries(form);
}

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
        const expired = await records.read(EXPIRED_KEY);
        if (typeof expired === 'string') await records.unlock(EXPIRED_KEY, expired);
        return Number(held.split('|')[2] ?? 0);
      } finally {
        await records.unlock(ENDING_KEY, mine);
      }
    },
    /** True once an outage: an interaction kept past its response_url's life. */
    async expiredFirst(): Promise<boolean> {
      return (await records.lock(EXPIRED_KEY, MARK_S, `${instance}|${now()}`)) === true;
    },
  };
}

export function buildInboxDrainer(o: {
  config: Pick<AppConfig, 'upstash' | 'sealKeys' | 'signingSecret' | 'instance' | 'role' | 'inboxMaxAgeMs'>;
  runner: { inject(envelope: Record<string, unknown>): Promise<string> };
  /** The copy's shared store: the claims a live command takes, and the outage's marks. */
  store: Pick<Claims, 'claim'> & Pick<Records, 'lock' | 'unlock' | 'read' | 'note'>;
  app: () => App;
  client: WebClient;
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
  const send = o.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  // The edge's age bound, applied at the drain's read too: an entry past it that no later write reached is dropped, counted.
  const inbox = createInboxStore({ url: upstash.url, token: upstash.token, maxAgeMs: o.config.inboxMaxAgeMs, ...(o.fetch ? { fetch: o.fetch } : {}) });
  const sealer = createSealer(sealKeys.current, sealKeys.previous);
  const marks = outageMarks(o.store, o.config.instance, now);
  const owner = { instance: o.config.instance, role: o.config.role };
  // Told by the owner line: a DM each (awaited, as before: the drain's word comes before its answers) and the alert URL (queued).
  const tellOwner = (text: string) => o.line.tell(text, 'edge_inbox', { sent: 'owner.told', failed: 'owner.tell_failed' }, { what: 'edge_inbox' });
  /** The outage on the status page's owner notices, beside the DM (its notes are told once an outage, not once an hour). */
  const noteOutage = (count: number, detail: string) => {
    const record: NoticeRecord = { cause: 'edge_inbox', at: new Date(now()).toISOString(), count, detail, instance: o.config.instance };
    return o.store.note(noticeStatusKey('edge_inbox'), JSON.stringify(record), NOTICE_TTL_S);
  };
  /** POSTs to a response_url; false when it refused (Slack answers 404 past its 30 minutes or 5 uses) or did not answer. */
  const viaResponseUrl = async (url: string, message: Record<string, unknown>): Promise<boolean> => {
    const response = await send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(5_000),
    }).catch(() => undefined);
    await response?.arrayBuffer().catch(() => {});
    return response?.ok === true;
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
      if (size !== undefined) await noteOutage(size, `all ${size} kept deliveries answered`);
      return size;
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
      // The live path's claim, under the trigger_id: a copy that took it live, or drains it too, runs it; this one does not.
      // (Without a trigger_id, under the kept delivery's own id: two drains at once still run it once.)
      const keys = delivery.claimKeys.length > 0 ? delivery.claimKeys : [`autohub:claim:inbox:${kept.id}`];
      const claim = await o.store.claim(keys, owner);
      if (claim.kind === 'duplicate') return 'duplicate';
      // Nobody waits on a kept delivery: left for a later drain rather than risk running it twice.
      if (claim.kind === 'fail-open') return 'retry';
      const body = formBody(kept);
      const responseUrl = typeof body.response_url === 'string' ? body.response_url : undefined;
      const fresh = responseUrl !== undefined && now() - kept.arrivedAt < RESPONSE_URL_MS;
      const user = String(body.user_id ?? (body.user as { id?: string } | undefined)?.id ?? '');
      let answeredBy: 'response_url' | 'dm' | 'none' = 'none';
      await o.app().processEvent({
        body,
        retryNum: undefined,
        retryReason: undefined,
        customProperties: { autohub_inbox: true },
        ack: async (response?: unknown) => {
          const message = typeof response === 'string' ? { text: response } : (response as Record<string, unknown> | undefined);
          if (!message || Object.keys(message).length === 0) return;
          if (fresh && (await viaResponseUrl(responseUrl, message))) {
            answeredBy = 'response_url';
            return;
          }
          if (kind !== 'command' || !user) return;
          const text = typeof message.text === 'string' ? message.text : 'autohub';
          await o.client.chat.postMessage({
            channel: user,
            text: lateCommandText(String(body.command ?? 'command'), String(body.text ?? ''), text),
            ...(message.blocks ? { blocks: message.blocks as never } : {}),
          });
          answeredBy = 'dm';
        },
      });
      if (kind === 'interaction' && !fresh && (await marks.expiredFirst().catch(() => false))) {
        await tellOwner(
          'A button press or form kept while no copy could answer was run after its response_url expired (30 minutes): its answer could not be shown where it was pressed.',
        );
      }
      o.log.info('inbox.ran', { kind, answeredBy, late: true });
      return 'ran';
    },
  });
}
