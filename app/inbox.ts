/**
 * The copy's drain of the edge's inbox (lib/inbox), built from the copy's
 * config: the shared store's REST settings, the store key (the same one the
 * edge seals with), the receiver's catch-up entry for kept mentions, and the
 * Bolt app for kept slash commands and interactions.
 *
 * A kept slash command runs its listener as a live one would; what it acks
 * goes to its response_url while that is valid (Slack: 30 minutes, up to 5
 * uses), else to the person by DM. A kept interaction runs its listener with
 * its response_url; past the 30 minutes the owner is told once.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { AppConfig } from '../lib/config/index.js';
import { createInboxStore, InboxDrainer, type KeptDelivery } from '../lib/inbox/index.js';
import type { Logger } from '../lib/log/index.js';
import { createSealer } from '../lib/store/index.js';

/** Slack: a response_url may be used up to 5 times within 30 minutes. */
export const RESPONSE_URL_MS = 30 * 60_000;
const ONCE_MS = 48 * 3_600_000;

function formBody(kept: KeptDelivery): Record<string, unknown> {
  const form = new URLSearchParams(kept.body);
  const payload = form.get('payload');
  if (payload !== null) return JSON.parse(payload) as Record<string, unknown>;
  return Object.fromEntries(form);
}

export function buildInboxDrainer(o: {
  config: Pick<AppConfig, 'upstash' | 'sealKeys' | 'signingSecret' | 'owners'>;
  runner: { inject(envelope: Record<string, unknown>): Promise<string> };
  app: () => App;
  client: WebClient;
  log: Logger;
  now?: () => number;
  fetch?: typeof fetch;
  checkEveryMs?: number;
}): InboxDrainer | undefined {
  const { upstash, sealKeys } = o.config;
  if (!upstash || !sealKeys) return undefined;
  const now = o.now ?? Date.now;
  const send = o.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const store = createInboxStore({ url: upstash.url, token: upstash.token, ...(o.fetch ? { fetch: o.fetch } : {}) });
  const sealer = createSealer(sealKeys.current, sealKeys.previous);
  const tellOwner = async (text: string) => {
    for (const owner of o.config.owners) await o.client.chat.postMessage({ channel: owner, text }).catch(() => {});
  };
  return new InboxDrainer({
    store,
    open: (sealed) => sealer.open(sealed),
    signingSecret: o.config.signingSecret,
    injectEvent: (envelope) => o.runner.inject(envelope),
    tellOwner,
    once: (key) => store.once(key, ONCE_MS),
    log: o.log,
    now,
    ...(o.checkEveryMs !== undefined ? { checkEveryMs: o.checkEveryMs } : {}),
    runForm: async (kept, kind) => {
      // Run once across the copies (Slack never retries a command or a click, so nothing else claims it).
      if (!(await store.once(`ran:${kept.id}`, ONCE_MS))) return 'done';
      const body = formBody(kept);
      const responseUrl = typeof body.response_url === 'string' ? body.response_url : undefined;
      const fresh = now() - kept.arrivedAt < RESPONSE_URL_MS && responseUrl !== undefined;
      const user = String(body.user_id ?? (body.user as { id?: string } | undefined)?.id ?? '');
      await o.app().processEvent({
        body,
        retryNum: undefined,
        retryReason: undefined,
        customProperties: { autohub_inbox: true },
        ack: async (response?: unknown) => {
          const message = typeof response === 'string' ? { text: response } : (response as Record<string, unknown> | undefined);
          if (!message || Object.keys(message).length === 0) return;
          if (fresh) {
            await send(responseUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
          } else if (kind === 'command' && user) {
            const text = typeof message.text === 'string' ? message.text : 'autohub';
            await o.client.chat.postMessage({
              channel: user,
              text: `(late, for your ${String(body.command ?? 'command')}) ${text}`,
              ...(message.blocks ? { blocks: message.blocks as never } : {}),
            });
          }
        },
      });
      if (kind === 'interaction' && !fresh && (await store.once('interaction-expired', ONCE_MS))) {
        await tellOwner(
          'A button press or form kept while no copy could answer was run after its response_url expired (30 minutes): its answer could not be shown where it was pressed.',
        );
      }
      o.log.info('inbox.ran', { kind, viaResponseUrl: fresh, late: true });
      return 'done';
    },
  });
}
