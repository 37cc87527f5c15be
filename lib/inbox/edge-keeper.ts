/**
 * The edge's side of the inbox: a delivery no copy accepted is sealed and
 * kept in the shared store, and Slack gets 200 (`x-autohub-route: inbox`) so
 * it neither retries into an outage nor counts a failure toward disabling
 * the app's events. Only when that write fails too (or the inbox holds its
 * count bound) does the edge answer 503, as without an inbox. Entries older
 * than the age bound are dropped by the same write, and counted.
 */
import { CATCHING_UP_TEXT, keptKind, type KeptDelivery } from './kept.js';
import type { InboxSettings } from './settings.js';
import type { InboxStore } from './store.js';
import { createInboxStore } from './store.js';
import { createWebSealer, deriveStoreKeyWeb, parseStoreKey, type WebSealer } from './web-seal.js';

/**
 * `kept`: in the inbox (its size after, and how many entries older than the age bound this write dropped);
 * `full`: refused at the count bound (503); `failed`: the write did not happen (503).
 */
export type KeepOutcome =
  | { kind: 'kept'; response: Response; size: number; expired: number }
  | { kind: 'full'; size: number; maxCount: number; expired: number }
  | { kind: 'failed'; why: string };

export interface EdgeKeeper {
  /** The longest one keep may take. */
  readonly timeoutMs: number;
  keep(request: Request, body: Uint8Array, arrivedAt: number, timeoutMs: number): Promise<KeepOutcome>;
  /** Deliveries this isolate kept (the health body). */
  readonly keptHere: number;
  /** The bounds this edge keeps to (AUTOHUB_INBOX_MAX, AUTOHUB_INBOX_MAX_HOURS). */
  readonly bounds: { maxCount: number; maxAgeMs: number };
  stats(): ReturnType<InboxStore['stats']>;
  /** The id of the key this edge seals with (seal.ts's storeKeyId): the copies must hold it to open what it keeps. */
  keyId(): Promise<string | undefined>;
}

export function createEdgeKeeper(o: { settings: InboxSettings; signingSecret: string; fetch?: typeof fetch; store?: InboxStore }): EdgeKeeper {
  const store = o.store ?? createInboxStore({ url: o.settings.url, token: o.settings.token, ...(o.fetch ? { fetch: o.fetch } : {}) });
  let sealer: Promise<WebSealer> | undefined;
  const sealerNow = () => {
    sealer ??= (async () => {
      const given = o.settings.storeKey === undefined ? undefined : parseStoreKey(o.settings.storeKey);
      if (o.settings.storeKey !== undefined && !given) throw new Error('AUTOHUB_STORE_KEY is not 32 bytes (64 hex digits or base64)');
      return createWebSealer(given ?? (await deriveStoreKeyWeb(o.signingSecret)));
    })();
    return sealer;
  };
  let keptHere = 0;
  return {
    timeoutMs: o.settings.writeTimeoutMs,
    bounds: { maxCount: o.settings.maxCount, maxAgeMs: o.settings.maxAgeMs },
    get keptHere() {
      return keptHere;
    },
    stats: () => store.stats(),
    keyId: async () => (await sealerNow().catch(() => undefined))?.id,
    async keep(request, body, arrivedAt, timeoutMs) {
      if (timeoutMs <= 0) return { kind: 'failed', why: 'no time left in the budget' };
      const contentType = request.headers.get('content-type') ?? '';
      const text = new TextDecoder().decode(body);
      const retry = request.headers.get('x-slack-retry-num');
      const kept: KeptDelivery = {
        v: 1,
        id: crypto.randomUUID(),
        arrivedAt,
        headers: {
          'content-type': contentType,
          'x-slack-request-timestamp': request.headers.get('x-slack-request-timestamp') ?? '',
          'x-slack-signature': request.headers.get('x-slack-signature') ?? '',
          ...(retry ? { 'x-slack-retry-num': retry } : {}),
        },
        body: text,
      };
      let result: Awaited<ReturnType<InboxStore['keep']>>;
      try {
        const member = await (await sealerNow()).seal(JSON.stringify(kept));
        result = await store.keep(member, arrivedAt, { maxCount: o.settings.maxCount, maxAgeMs: o.settings.maxAgeMs }, timeoutMs);
      } catch (error) {
        // Told apart by timeout-or-not, never by message (workerd and Node word them differently).
        const name = error instanceof Error ? error.name : '';
        return { kind: 'failed', why: name === 'TimeoutError' || name === 'AbortError' ? 'store timeout' : `store error (${name || 'unknown'})` };
      }
      if (result.kind === 'full') return { kind: 'full', size: result.size, maxCount: o.settings.maxCount, expired: result.expired };
      keptHere += 1;
      const headers = { 'x-autohub-route': 'inbox' };
      const kind = keptKind(contentType, text);
      const response =
        kind === 'command' ? Response.json({ response_type: 'ephemeral', text: CATCHING_UP_TEXT }, { headers }) : new Response(null, { status: 200, headers });
      return { kind: 'kept', response, size: result.size, expired: result.expired };
    },
  };
}
