/**
 * Slack's `ssl_check`: a POST Slack sends to a slash command's URL to test
 * its certificate, as a form body `ssl_check=1&token=...`, which a receiver
 * answers 200 **before** verifying any signature (bolt-js answers it ahead
 * of its signature check, bolt-python's `SslCheck` middleware runs before
 * `RequestVerification`). Pure, and Worker-safe: the edge and the copies
 * share it.
 *
 * Only a body that can run nothing passes unsigned: a form whose `ssl_check`
 * is exactly `1` and that carries neither a `command` nor a `payload` (the
 * fields that make a form a slash command or an interaction). Anything else
 * goes through the signature check as before.
 */

/** Fields that make a form something a listener would run. */
const RUNNABLE_FIELDS = ['command', 'payload'] as const;

export function isSslCheck(contentType: string | null | undefined, body: Uint8Array | string): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return false;
  // An ssl_check is a few dozen bytes; a large form is not one, and is not decoded here.
  if (body.length > 4096) return false;
  const form = new URLSearchParams(typeof body === 'string' ? body : new TextDecoder().decode(body));
  if (form.getAll('ssl_check').join(',') !== '1') return false;
  return RUNNABLE_FIELDS.every((name) => !form.has(name));
}
