/**
 * A click on a `feedback_buttons` element, read from Slack's `block_actions`
 * payload: which button (its `value`, and whether it is the element's
 * `positive_button`), who, on which message, in which thread, and the event
 * the message answered (from autohub's metadata on it). Pure.
 *
 * The element lives in a `context_actions` block
 * (https://docs.slack.dev/reference/block-kit/block-elements/feedback-buttons-element,
 * https://docs.slack.dev/reference/block-kit/blocks/context-actions-block); a click
 * arrives as `block_actions` whose action has `type: 'feedback_buttons'` and
 * the button's `value` (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload).
 */
import { partOf } from './parts.js';
import type { Feedback } from './types.js';

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The positive button's value of the element `actionId` in the message's blocks; undefined when the blocks do not hold it. */
function positiveValue(blocks: unknown, actionId: string | undefined): string | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks) {
    for (const element of (obj(block)?.elements as unknown[] | undefined) ?? []) {
      const e = obj(element);
      if (e?.type === 'feedback_buttons' && (actionId === undefined || e.action_id === actionId)) return str(obj(e.positive_button)?.value);
    }
  }
  return undefined;
}

/**
 * The feedback in a `block_actions` payload, or undefined when its action is
 * no feedback button. `positive` is read from the message's own element
 * (its positive button's value); without the blocks, a value naming itself
 * positive ("positive", "good", "up", "yes", "+1"...) counts as positive.
 */
export function feedbackOf(body: Json): Feedback | undefined {
  if (body.type !== 'block_actions' || !Array.isArray(body.actions)) return undefined;
  const action = obj(body.actions[0]);
  if (action?.type !== 'feedback_buttons') return undefined;
  const value = str(action.value) ?? '';
  const actionId = str(action.action_id);
  const message = obj(body.message);
  const container = obj(body.container);
  const positive = positiveValue(message?.blocks, actionId);
  return {
    value,
    positive: positive !== undefined ? positive === value : /^(positive|good|up|yes|like|\+1|thumbs_?up)/i.test(value),
    user: str(obj(body.user)?.id),
    channel: str(obj(body.channel)?.id) ?? str(container?.channel_id),
    messageTs: str(message?.ts) ?? str(container?.message_ts),
    threadTs: str(message?.thread_ts) ?? str(container?.thread_ts),
    eventId: message ? partOf(message)?.event_id : undefined,
    actionId,
  };
}
