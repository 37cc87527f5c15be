/**
 * What an owner alert posts: one JSON body that three common receivers read
 * without a template (pure).
 *   - a Slack incoming webhook shows `text` (and ignores the rest);
 *   - a Discord webhook shows `content` (at most 2,000 characters: the text is cut to fit);
 *   - ntfy shows a POST's raw body as the message, so the body is the JSON
 *     itself, `text` first; the `Title` header (ntfy reads it, the others ignore it)
 *     names the cause.
 * Anything else gets the fields to route on: `cause`, `instance`, `role`, `at`.
 */

/** Discord refuses `content` past 2,000 characters; the same cut keeps every body small. */
export const ALERT_TEXT_MAX = 1_900;

export interface AlertBody {
  text: string;
  content: string;
  cause: string;
  instance: string;
  role: string;
  /** When the notice was raised (ISO 8601). */
  at: string;
}

/** `text` cut to ALERT_TEXT_MAX characters (an ellipsis marks the cut), never splitting a surrogate pair. */
export function alertText(text: string, max: number = ALERT_TEXT_MAX): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  // A cut between the two halves of a surrogate pair (an emoji) would leave half a character.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

export function alertBody(text: string, o: { cause: string; instance: string; role: string; at: number }): AlertBody {
  const shown = alertText(text);
  return { text: shown, content: shown, cause: o.cause, instance: o.instance, role: o.role, at: new Date(o.at).toISOString() };
}
