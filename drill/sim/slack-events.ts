/**
 * Slack deliveries as Slack sends them, signed afresh on every attempt: for
 * the drill, `npm run verify` and the tests.
 */
import { signedHeaders } from '../../lib/slack/index.js';

export interface MentionOptions {
  eventId: string;
  team?: string;
  channel?: string;
  ts: string;
  user?: string;
  text?: string;
  threadTs?: string;
  type?: 'app_mention' | 'message';
  channelType?: 'im' | 'channel';
}

export function mentionEnvelope(o: MentionOptions): Record<string, unknown> {
  const team = o.team ?? 'T0AUTOHUB';
  return {
    token: 'legacy-verification-token',
    team_id: team,
    api_app_id: 'A0AUTOHUB',
    type: 'event_callback',
    event_id: o.eventId,
    event_time: Math.floor(Number(o.ts)),
    event: {
      type: o.type ?? 'app_mention',
      user: o.user ?? 'U0PERSON',
      text: o.text ?? '<@UAUTOHUB> hello',
      ts: o.ts,
      channel: o.channel ?? 'C0GENERAL',
      event_ts: o.ts,
      ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
      ...(o.channelType ? { channel_type: o.channelType } : {}),
    },
  };
}

export interface DeliveryOptions {
  signingSecret: string;
  /** @default Date.now() */
  now?: number;
  retryNum?: number;
  retryReason?: string;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** POST one delivery to `url` (a copy's or the edge's /slack/events), signed at `now`. */
export async function deliver(url: string, body: string | Record<string, unknown>, o: DeliveryOptions): Promise<Response> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': o.contentType ?? (typeof body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json'),
    ...(await signedHeaders(o.signingSecret, raw, o.now ?? Date.now())),
    ...(o.retryNum !== undefined
      ? { 'x-slack-retry-num': String(o.retryNum), 'x-slack-retry-reason': o.retryReason ?? 'http_timeout' }
      : {}),
    ...o.headers,
  };
  return fetch(url, { method: 'POST', headers, body: raw, signal: o.signal });
}

/** A slash command's form body. */
export function commandForm(o: { command?: string; text?: string; triggerId: string; team?: string }): string {
  return new URLSearchParams({
    token: 'legacy-verification-token',
    team_id: o.team ?? 'T0AUTOHUB',
    channel_id: 'C0GENERAL',
    user_id: 'U0PERSON',
    command: o.command ?? '/autohub',
    text: o.text ?? '',
    response_url: 'https://hooks.slack.invalid/commands/1',
    trigger_id: o.triggerId,
  }).toString();
}
