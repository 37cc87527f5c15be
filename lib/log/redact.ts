/**
 * The redaction step every log field passes through, so a line can carry
 * nothing from a message, a stored record or a credential by construction,
 * not by a length cut:
 *   - fields whose name says they hold content or a credential are replaced;
 *   - Slack tokens, bearer tokens and the secrets the logger was given are
 *     masked wherever they appear in text;
 *   - an Upstash error's trailing `command was: [...]` (the whole command,
 *     stored bodies included) is cut off;
 *   - errors keep their name, code, message, stack and cause, each redacted.
 */
const CONTENT_FIELDS = /^(body|text|payload|blocks|record|value|values|token|authorization|secret|signing_?secret|password|cookie|headers_raw|raw)$/i;
const SLACK_TOKEN = /\bxox[abeoprs]-[A-Za-z0-9-]+/g;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/=-]+/g;
const COMMAND_WAS = /,?\s*command was:[\s\S]*$/;
const MASK = '[redacted]';
const MAX_DEPTH = 6;

export type Redactor = (value: unknown) => unknown;

export function createRedactor(secrets: readonly string[] = []): Redactor {
  // Secrets shorter than 8 characters would mask ordinary words.
  const known = secrets.filter((s) => s.length >= 8);
  const text = (s: string): string => {
    let out = s.replace(COMMAND_WAS, ', command was: [redacted]').replace(SLACK_TOKEN, MASK).replace(BEARER, `Bearer ${MASK}`);
    for (const secret of known) out = out.split(secret).join(MASK);
    return out;
  };
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth > MAX_DEPTH) return '[too deep]';
    if (value instanceof Error) {
      const code = (value as { code?: unknown }).code;
      return {
        name: value.name,
        message: text(value.message),
        ...(code === undefined ? {} : { code: walk(code, depth + 1) }),
        ...(value.stack ? { stack: text(value.stack.split('\n').slice(0, 8).join('\n')) } : {}),
        ...(value.cause !== undefined ? { cause: walk(value.cause, depth + 1) } : {}),
      };
    }
    if (Array.isArray(value)) return value.slice(0, 50).map((v) => walk(v, depth + 1));
    const out: Record<string, unknown> = {};
    // A number under such a name (a lease's fencing `token`) carries no content.
    for (const [key, v] of Object.entries(value))
      out[key] = CONTENT_FIELDS.test(key) && typeof v !== 'number' && typeof v !== 'boolean' ? MASK : walk(v, depth + 1);
    return out;
  };
  return (value) => walk(value, 0);
}
