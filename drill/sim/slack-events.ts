/**
 * Slack deliveries as Slack sends them, signed afresh on every attempt: for
 * the drill, `npm run verify` and the tests.
 */
import { createHash } from 'node:crypto';
import type { EnvelopedEvent } from '@slack/bolt';
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
  /** The person's own team when it is not the workspace's (a Slack Connect user): the event's `user_team`. */
  userTeam?: string;
  /**
   * Written by an app, not a person: the event carries its `bot_id`, `app_id` and `bot_profile`, and
   * `user` is its bot user (a bot's message as https://docs.slack.dev/reference/objects/message-object shows it).
   */
  by?: { user: string; bot_id: string; app_id: string; name?: string };
}

export function mentionEnvelope(o: MentionOptions): Record<string, unknown> {
  const team = o.team ?? 'T0AUTOHUB';
  const envelope = {
    token: 'legacy-verification-token',
    team_id: team,
    api_app_id: 'A0AUTOHUB',
    type: 'event_callback' as const,
    event_id: o.eventId,
    event_time: Math.floor(Number(o.ts)),
    // Whom the event is for: one installation, this app's bot user in its workspace (Slack truncates the list to one;
    // https://docs.slack.dev/apis/events-api#authorizations, and Bolt's EnvelopedEvent: https://docs.slack.dev/tools/bolt-js/reference/interfaces/EnvelopedEvent).
    authorizations: [{ enterprise_id: null, team_id: team, user_id: 'UAUTOHUB', is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
    event_context: `4-${o.eventId}`,
    event: mentionEvent(o),
  } satisfies Omit<EnvelopedEvent, 'event'> & { event: Record<string, unknown> };
  return envelope;
}

/**
 * The event of a mention or a message, with the fields @slack/types 3.2's AppMentionEvent and
 * GenericMessageEvent give it (test/sim/sdk-args.ts checks with tsc that it has no other, but `app_id`).
 */
export function mentionEvent(o: MentionOptions) {
  const team = o.team ?? 'T0AUTOHUB';
  const text = o.text ?? '<@UAUTOHUB> hello';
  const channel = o.channel ?? 'C0GENERAL';
  return {
    type: o.type ?? 'app_mention',
    user: o.user ?? 'U0PERSON',
    text,
    ts: o.ts,
    channel,
    event_ts: o.ts,
    // The writer's team (the person's own, in Slack Connect), which lib/turn/handle.ts reads before the envelope's team_id.
    team: o.userTeam ?? team,
    // The rich_text a Slack client sends beside the text (https://docs.slack.dev/reference/block-kit/blocks/rich-text-block).
    blocks: richText(text, o.eventId),
    // A person's message carries the id their client gave it, the same on its app_mention and its message event.
    ...(o.by ? {} : { client_msg_id: clientMsgId(channel, o.ts) }),
    ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
    ...(o.channelType ? { channel_type: o.channelType } : {}),
    ...(o.userTeam ? { user_team: o.userTeam, source_team: o.userTeam } : {}),
    ...(o.by
      ? {
          user: o.by.user,
          bot_id: o.by.bot_id,
          app_id: o.by.app_id,
          bot_profile: { id: o.by.bot_id, app_id: o.by.app_id, name: o.by.name ?? 'a bot', team_id: team, deleted: false },
        }
      : {}),
  };
}

/** A message's text as the rich_text block Slack's clients send: mentions as `user` elements, the rest as `text`. */
function richText(text: string, id: string): Array<Record<string, unknown>> {
  const elements = text
    .split(/(<@[A-Z0-9]+>)/)
    .filter((part) => part !== '')
    .map((part) => {
      const mention = /^<@([A-Z0-9]+)>$/.exec(part);
      return mention ? { type: 'user', user_id: mention[1] } : { type: 'text', text: part };
    });
  return [{ type: 'rich_text', block_id: id.slice(-5), elements: [{ type: 'rich_text_section', elements }] }];
}

/** A client_msg_id (a UUID) that is the same for every event of one message. */
function clientMsgId(channel: string, ts: string): string {
  const h = createHash('sha256').update(`${channel}:${ts}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * One message typed in a DM as "@bot hi", as Slack delivers it: two events
 * under two event_ids, `app_mention` (no `channel_type`) and `message` with
 * `channel_type: "im"`, in no fixed order (platform-facts, 2026-12-01; the
 * events' pages https://docs.slack.dev/reference/events/app_mention and
 * https://docs.slack.dev/reference/events/message.im; seen by other bot
 * projects, e.g. shomali11/slacker#83). Returned mention first; `order`
 * 'im-first' swaps them.
 */
export function dmMentionPair(
  o: Omit<MentionOptions, 'eventId' | 'type' | 'channelType'> & { eventIds: readonly [string, string]; order?: 'mention-first' | 'im-first' },
): [Record<string, unknown>, Record<string, unknown>] {
  const { eventIds, order, ...message } = o;
  const base = { ...message, channel: message.channel ?? 'D0PERSON', text: message.text ?? '<@UAUTOHUB> hi' };
  const mention = mentionEnvelope({ ...base, eventId: eventIds[0], type: 'app_mention' });
  const im = mentionEnvelope({ ...base, eventId: eventIds[1], type: 'message', channelType: 'im' });
  return order === 'im-first' ? [im, mention] : [mention, im];
}

/**
 * Slack telling the app it is dropping its events: past 30,000 events an hour
 * from one workspace. It has no inner event and is sent to the events URL
 * (https://docs.slack.dev/reference/events/app_rate_limited).
 */
export function appRateLimitedEnvelope(o: { team?: string; minute?: number } = {}): Record<string, unknown> {
  return {
    token: 'legacy-verification-token',
    type: 'app_rate_limited',
    team_id: o.team ?? 'T0AUTOHUB',
    // "A rounded epoch time value indicating the minute your application became rate limited".
    minute_rate_limited: o.minute ?? Math.floor(Date.now() / 60_000) * 60,
    api_app_id: 'A0AUTOHUB',
  };
}

/**
 * Slack's check of a slash command's Request URL: a form post with
 * `ssl_check=1` and the (deprecated) verification token, sent without a
 * signature (https://docs.slack.dev/interactivity/implementing-slash-commands;
 * bolt-js and bolt-python answer it before verifying signatures).
 */
export function sslCheckForm(token = 'legacy-verification-token'): string {
  return new URLSearchParams({ ssl_check: '1', token }).toString();
}

/** POST `form` as Slack sends an ssl_check: url-encoded, no X-Slack-Signature, no timestamp. */
export async function deliverUnsigned(url: string, form: string, o: { signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, signal: o.signal });
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
    ...(o.retryNum !== undefined ? { 'x-slack-retry-num': String(o.retryNum), 'x-slack-retry-reason': o.retryReason ?? 'http_timeout' } : {}),
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

/**
 * An assistant thread opening, or the person moving around Slack with it
 * open, as Slack sends it: `assistant_thread_started` /
 * `assistant_thread_context_changed` with `assistant_thread: { user_id,
 * context: { channel_id, team_id, enterprise_id }, channel_id, thread_ts }`
 * (https://docs.slack.dev/reference/events/assistant_thread_started,
 * https://docs.slack.dev/reference/events/assistant_thread_context_changed).
 */
/** The last event_ts made here, in microseconds: each next one is later (Slack's own are unique per event). */
let lastEventMicros = 0;
function nextEventTs(): string {
  lastEventMicros = Math.max(lastEventMicros + 1, Date.now() * 1000);
  return `${Math.floor(lastEventMicros / 1_000_000)}.${String(lastEventMicros % 1_000_000).padStart(6, '0')}`;
}

export function assistantThreadEnvelope(o: {
  eventId: string;
  type?: 'assistant_thread_started' | 'assistant_thread_context_changed';
  channel?: string;
  threadTs: string;
  user?: string;
  team?: string;
  /** The channel the person is looking at (none: an empty context, as Slack sends from a search, say). */
  viewing?: string;
  enterprise?: string;
  /** The event's own time (Slack's `event_ts`); default now, to the millisecond, later than the last one made here. */
  eventTs?: string;
}): Record<string, unknown> {
  const team = o.team ?? 'T0AUTOHUB';
  const eventTs = o.eventTs ?? nextEventTs();
  return {
    token: 'legacy-verification-token',
    team_id: team,
    api_app_id: 'A0AUTOHUB',
    type: 'event_callback',
    event_id: o.eventId,
    event_time: Math.floor(Number(eventTs)),
    event: {
      type: o.type ?? 'assistant_thread_started',
      assistant_thread: {
        user_id: o.user ?? 'U0PERSON',
        context: o.viewing ? { channel_id: o.viewing, team_id: team, ...(o.enterprise ? { enterprise_id: o.enterprise } : {}) } : {},
        channel_id: o.channel ?? 'D0PERSON',
        thread_ts: o.threadTs,
      },
      event_ts: eventTs,
    },
  };
}

/**
 * The Agent messaging experience's events, as Slack sends them (https://docs.slack.dev/ai/migrating-to-agent-messaging):
 * a DM with the app opened, `app_home_opened` with `tab: "messages"` (`@slack/types` 3.2 AppHomeOpenedEvent:
 * `user`, `channel`, `tab`, `context`, `event_ts`), and the person moving around Slack, `app_context_changed`
 * (https://docs.slack.dev/reference/events/app_context_changed: `context.entities` "ordered by relevance",
 * `{}` when none; the envelope's `authorizations` name the person). `viewing`: the channel they look at.
 */
export function agentEnvelope(o: {
  eventId: string;
  type: 'app_home_opened' | 'app_context_changed';
  /** app_home_opened's tab. @default 'messages' */
  tab?: 'home' | 'messages';
  channel?: string;
  user?: string;
  team?: string;
  viewing?: string;
  eventTs?: string;
}): Record<string, unknown> {
  const team = o.team ?? 'T0AUTOHUB';
  const user = o.user ?? 'U0PERSON';
  const eventTs = o.eventTs ?? nextEventTs();
  const context = o.viewing ? { entities: [{ type: 'slack#/types/channel_id', value: o.viewing, team_id: team }] } : {};
  const event =
    o.type === 'app_home_opened'
      ? { type: 'app_home_opened', user, channel: o.channel ?? 'D0PERSON', tab: o.tab ?? 'messages', context, event_ts: eventTs }
      : { type: 'app_context_changed', user, channel: o.channel ?? 'D0PERSON', context, event_ts: eventTs };
  return {
    token: 'legacy-verification-token',
    team_id: team,
    api_app_id: 'A0AUTOHUB',
    type: 'event_callback',
    event_id: o.eventId,
    event_time: Math.floor(Number(eventTs)),
    authorizations: [{ team_id: team, user_id: user, is_bot: false, is_enterprise_install: false }],
    event,
  };
}

/** The feedback buttons an answer ends with: a `context_actions` block holding a `feedback_buttons` element. */
export function feedbackBlocks(o: { actionId?: string; positive?: string; negative?: string } = {}): Record<string, unknown>[] {
  return [
    {
      type: 'context_actions',
      elements: [
        {
          type: 'feedback_buttons',
          action_id: o.actionId ?? 'feedback',
          positive_button: { text: { type: 'plain_text', text: 'Good answer' }, value: o.positive ?? 'good' },
          negative_button: { text: { type: 'plain_text', text: 'Bad answer' }, value: o.negative ?? 'bad' },
        },
      ],
    },
  ];
}

/**
 * A click on an answer's feedback button, as Slack posts it to the
 * interactivity URL: a form with `payload`, a `block_actions` whose action
 * is `type: 'feedback_buttons'` with the button's `value`, the message (its
 * blocks and metadata) and a `trigger_id` unique to the click
 * (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload,
 * https://docs.slack.dev/reference/block-kit/block-elements/feedback-buttons-element).
 */
export function feedbackClickForm(o: {
  triggerId: string;
  channel?: string;
  messageTs: string;
  threadTs?: string;
  /** Which button: the element's positive or negative one. */
  button: 'positive' | 'negative';
  user?: string;
  team?: string;
  /** The answer's metadata (autohub's event_payload names the event it answered). */
  metadata?: Record<string, unknown>;
  blocks?: Record<string, unknown>[];
}): string {
  const blocks = o.blocks ?? feedbackBlocks();
  const element = (blocks[0]?.elements as Array<Record<string, { value: string }>> | undefined)?.[0];
  const value = (o.button === 'positive' ? element?.positive_button?.value : element?.negative_button?.value) ?? o.button;
  const channel = o.channel ?? 'C0GENERAL';
  const payload = {
    type: 'block_actions',
    user: { id: o.user ?? 'U0PERSON', team_id: o.team ?? 'T0AUTOHUB' },
    api_app_id: 'A0AUTOHUB',
    token: 'legacy-verification-token',
    team: { id: o.team ?? 'T0AUTOHUB', domain: 'autohub' },
    container: { type: 'message', message_ts: o.messageTs, channel_id: channel, is_ephemeral: false, ...(o.threadTs ? { thread_ts: o.threadTs } : {}) },
    trigger_id: o.triggerId,
    channel: { id: channel, name: 'general' },
    message: {
      type: 'message',
      ts: o.messageTs,
      ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
      user: 'UAUTOHUB',
      bot_id: 'BAUTOHUB',
      text: 'an answer',
      blocks,
      ...(o.metadata ? { metadata: o.metadata } : {}),
    },
    response_url: 'https://hooks.slack.invalid/actions/1',
    actions: [
      {
        type: 'feedback_buttons',
        action_id: String(element?.action_id ?? 'feedback'),
        block_id: 'fb',
        value,
        action_ts: `${Math.floor(Date.now() / 1000)}.000200`,
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
