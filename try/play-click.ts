/**
 * A click on one of the bot's own buttons, as Slack posts it to the
 * interactivity URL: a `block_actions` payload (a form with `payload`) naming
 * the element clicked, the message as it is now (its blocks and metadata),
 * the channel, the container and a trigger id unique to the click
 * (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload).
 * The element must be on the message now: a button the message no longer
 * shows (a question already answered) cannot be clicked. Pure.
 *
 * Elements clicked: `button` (in an `actions` block or a section's
 * accessory), `icon_button`, and `feedback_buttons` (one of its two buttons,
 * https://docs.slack.dev/reference/block-kit/block-elements/feedback-buttons-element).
 */
import { AUTOHUB_BOT } from '../drill/sim/fake-web-api.js';
import type { Block } from './play-view.js';

export interface Click {
  actionId: string;
  value: string | undefined;
}

export interface Clicked {
  type: string;
  action_id: string;
  block_id: string | undefined;
  value: string | undefined;
  /** The button's label, for the timeline. */
  label: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
const textOf = (t: unknown): string => String(obj(t).text ?? '');

/** The element `click` names in `blocks`, or undefined when the message does not show it. */
export function findClicked(blocks: readonly Block[], click: Click): Clicked | undefined {
  for (const block of blocks) {
    const elements = [...((block.elements as unknown[] | undefined) ?? []), ...(block.accessory ? [block.accessory] : [])];
    for (const raw of elements) {
      const e = obj(raw);
      if (e.action_id !== click.actionId) continue;
      const blockId = typeof block.block_id === 'string' ? block.block_id : undefined;
      if (e.type === 'feedback_buttons') {
        for (const side of ['positive_button', 'negative_button'] as const) {
          const b = obj(e[side]);
          if (b.value === click.value)
            return { type: 'feedback_buttons', action_id: click.actionId, block_id: blockId, value: click.value, label: textOf(b.text) };
        }
      } else if ((e.type === 'button' || e.type === 'icon_button') && (e.value as string | undefined) === click.value) {
        return { type: String(e.type), action_id: click.actionId, block_id: blockId, value: click.value, label: textOf(e.text) || String(e.icon ?? '') };
      }
    }
  }
  return undefined;
}

const metadataOf = (raw: string | undefined): Json | undefined => {
  try {
    return raw ? (JSON.parse(raw) as Json) : undefined;
  } catch {
    return undefined;
  }
};

/** The signed form body Slack would post for `clicked` on message `ts` (thread `thread`, channel `channel`) by `user`. */
export function blockActionsForm(o: {
  clicked: Clicked;
  user: string;
  channel: string;
  ts: string;
  thread: string;
  text: string;
  blocks: readonly Block[];
  metadata: string | undefined;
  triggerId: string;
  responseUrl: string;
  now: number;
}): string {
  const actionTs = (o.now / 1000).toFixed(6);
  const metadata = metadataOf(o.metadata);
  const { label, ...action } = o.clicked;
  const payload = {
    type: 'block_actions',
    user: { id: o.user, team_id: 'T0AUTOHUB' },
    api_app_id: 'A0AUTOHUB',
    token: 'legacy-verification-token',
    team: { id: 'T0AUTOHUB', domain: 'autohub' },
    container: { type: 'message', message_ts: o.ts, channel_id: o.channel, is_ephemeral: false, thread_ts: o.thread },
    trigger_id: o.triggerId,
    channel: { id: o.channel, name: o.channel.startsWith('D') ? 'directmessage' : 'general' },
    message: {
      type: 'message',
      ts: o.ts,
      thread_ts: o.thread,
      user: AUTOHUB_BOT.user,
      bot_id: AUTOHUB_BOT.bot_id,
      text: o.text,
      blocks: o.blocks,
      ...(metadata ? { metadata } : {}),
    },
    state: { values: {} },
    response_url: o.responseUrl,
    actions: [{ ...action, ...(action.type === 'button' ? { text: { type: 'plain_text', text: label } } : {}), action_ts: actionTs }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
