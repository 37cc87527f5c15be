/**
 * The edge's side of the inbox: a delivery no copy accepted is sealed and
 * kept in the shared store, and Slack gets 200 (`x-autohub-route: inbox`) so
 * it neither retries into an outage nor counts a failure toward disabling
 * the app's events. Only when that write fails too (or the inbox is past its
 * bounds) does the edge answer 503, as without an inbox.
 */
import { CATCHING_UP_TEXT, keptKind, type KeptDelivery } from './kept.js';
import type { InboxSettings } from './settings.js';
import type { InboxStore } from './store.js';
import { createInboxStore } from './store.js';
import { createWebSealer, deriveStoreKeyWeb, parseStoreKey, type WebSealer } from './web-seal.js';

export type KeepOutcome = { kind: 'kept'; response: Response } | { kind: 'full' } | { kind: 'failed'; why: string };

export interface EdgeKeeper {
  /** The longest one keep may take. */
  readonly timeoutMs: number;
  keep(request: Request, body: Uint8Array, arrivedAt: number, timeoutMs: number): Promise<KeepOutcome>;
  /** Deliveries this isolate kept (the health body). */
  readonly keptHere: number;
  stats(): ReturnType<InboxStore['stats']>;
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
    get keptHere() {
      return keptHere;
    },
    stats: () => store.stats(),
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
      try {
        const member = await (await sealerNow()).seal(JSON.stringify(kept));
        const result = await store.keep(member, arrivedAt, { maxCount: o.settings.maxCount, maxAgeMs: o.settings.maxAgeMs }, timeoutMs);
        if (result === 'full') return { kind: 'full' };
      } catch (error) {
        // Told apart by timeout-or-not, never by message (workerd and Node word them differently).
        const name = error instanceof Error ? error.name : '';
        return { kind: 'failed', why: name === 'TimeoutError' || name === 'AbortError' ? 'store timeout' : `store error (${name || 'unknown'})` };
      }
      keptHere += 1;
      const headers = { 'x-autohub-route': 'inbox' };
      const kind = keptKind(contentType, text);
      const response =
        kind === 'command' ? Response.json({ response_type: 'ephemeral', text: CATCHING_UP_TEXT }, { headers }) : new Response(null, { status: 200, headers });
      return { kind: 'kept', response };
    },
  };
}
