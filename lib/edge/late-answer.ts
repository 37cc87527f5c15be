/**
 * A slash command's answer that reached the edge after it stopped waiting
 * for that leg. A copy answers a command in its HTTP answer (the ack's
 * body: https://docs.slack.dev/interactivity/implementing-slash-commands);
 * when the tunnel carries that answer back slower than the leg's timeout,
 * the edge has already gone on (to the other copy, which finds the command
 * claimed and answers nothing, or to the inbox), and the copy cannot know
 * its answer went unread. The edge alone sees both, so the edge passes the
 * late answer on to the command's `response_url`, which takes the same
 * message (`text`, `blocks`, `response_type`), once, and only when the
 * answer Slack got carried none of a copy's own.
 */

/** How long after its leg's timeout a command's answer is still waited for (a copy acks within its own 3 s deadline). */
export const LATE_ANSWER_MS = 10_000;

/** A slash command's `response_url` (Slack's own host, https), or undefined for any other delivery. */
export function commandResponseUrl(contentType: string | null, body: Uint8Array): string | undefined {
  if (!contentType?.startsWith('application/x-www-form-urlencoded')) return undefined;
  const form = new URLSearchParams(new TextDecoder().decode(body));
  const url = form.get('response_url');
  if (!form.get('command') || !url) return undefined;
  try {
    const parsed = new URL(url);
    // Slack's response URLs are https on slack.com; the drill's simulated Slack answers on loopback over http.
    const loopback = parsed.hostname === '127.0.0.1' || parsed.hostname === 'localhost';
    return parsed.protocol === 'https:' || (loopback && parsed.protocol === 'http:') ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The message a copy's late HTTP answer carried, as `response_url` takes it:
 * its JSON body, or its text as `{ text }`. Undefined when it carried none
 * (the copy acked empty: it answers by `response_url` itself, or ran nothing).
 */
export function lateMessage(response: Response | undefined, body: ArrayBuffer | undefined): string | undefined {
  if (!response || response.status !== 200 || !body || body.byteLength === 0) return undefined;
  const text = new TextDecoder().decode(body).trim();
  if (text === '') return undefined;
  if ((response.headers.get('content-type') ?? '').includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? text : undefined;
    } catch {
      return undefined;
    }
  }
  return JSON.stringify({ text });
}

/** Whether the answer Slack got was a copy's message (then a late one is not passed on: it would be a second). */
export async function answeredWithMessage(route: string | null, response: Response): Promise<boolean> {
  if (route !== 'hub' && route !== 'cloud') return false;
  const body = await response.clone().arrayBuffer();
  return new TextDecoder().decode(body).trim() !== '';
}
