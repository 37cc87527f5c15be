/**
 * Claim keys, namespaced so the store can be shared with other data.
 * `team` is the Slack team (workspace) id, or `-` when a payload has none.
 */
const PREFIX = 'autohub:claim';

function part(value: string | undefined): string {
  return value && value.length > 0 ? value.replace(/[:\s]/g, '_') : '-';
}

/** An Events API delivery, by its `event_id` (stable across Slack's retries). */
export function eventKey(team: string | undefined, eventId: string): string {
  return `${PREFIX}:${part(team)}:event:${part(eventId)}`;
}

/**
 * A message, whatever `event_id` it arrives under: Slack has been seen to
 * deliver one message twice with two event ids and no retry headers.
 */
export function messageKey(team: string | undefined, channel: string, ts: string): string {
  return `${PREFIX}:${part(team)}:message:${part(channel)}:${part(ts)}`;
}

/** A slash command or interactivity payload, by its `trigger_id`. */
export function triggerKey(team: string | undefined, triggerId: string): string {
  return `${PREFIX}:${part(team)}:trigger:${part(triggerId)}`;
}
