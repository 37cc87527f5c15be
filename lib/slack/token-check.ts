/**
 * The bot token, checked once at start-up with Slack's `auth.test`
 * (https://docs.slack.dev/reference/methods/auth.test): a token Slack refuses
 * stops start-up with one line, as a malformed setting does; a Slack that
 * cannot be reached (or answers with a passing fault) does not: the copy
 * starts, and the notices say so when the token fails later.
 */
import { WebClient } from '@slack/web-api';

export type TokenCheck =
  | { kind: 'accepted'; team: string | undefined; user: string | undefined }
  | { kind: 'refused'; error: string }
  | { kind: 'unknown'; reason: string };

/** auth.test's answers that mean this token will never work as it is: only the owner can mend them. */
export const TOKEN_REFUSALS: ReadonlySet<string> = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);

/** What auth.test's answer, or the error its call threw, says of the token. Pure. */
export function tokenCheckOf(outcome: { answer: { ok?: boolean; error?: string; team?: string; user?: string } } | { thrown: unknown }): TokenCheck {
  if ('answer' in outcome) {
    const a = outcome.answer;
    if (a.ok) return { kind: 'accepted', team: a.team, user: a.user };
    const error = a.error ?? 'unknown';
    return TOKEN_REFUSALS.has(error) ? { kind: 'refused', error } : { kind: 'unknown', reason: `slack: ${error}` };
  }
  const e = outcome.thrown as { code?: unknown; data?: { error?: unknown }; message?: unknown };
  // The WebClient throws Slack's `ok: false` as a platform error carrying the answer.
  if (e?.code === 'slack_webapi_platform_error' && typeof e.data?.error === 'string') return tokenCheckOf({ answer: { ok: false, error: e.data.error } });
  return { kind: 'unknown', reason: typeof e?.code === 'string' ? e.code : String(e?.message ?? outcome.thrown).slice(0, 120) };
}

export interface CheckTokenOptions {
  /** Slack's Web API base (SLACK_API_URL). @default 'https://slack.com/api/' */
  apiUrl?: string;
  /** One attempt at most this long: a start waits no longer for a Slack that does not answer. @default 3000 */
  timeoutMs?: number;
  /** @default a WebClient for the token, no retries */
  authTest?: () => Promise<{ ok?: boolean; error?: string; team?: string; user?: string }>;
}

/** Asks Slack once whether `token` works; never throws. */
export async function checkToken(token: string, options: CheckTokenOptions = {}): Promise<TokenCheck> {
  const authTest =
    options.authTest ??
    (() =>
      new WebClient(token, {
        slackApiUrl: options.apiUrl ?? 'https://slack.com/api/',
        timeout: options.timeoutMs ?? 3000,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
        logLevel: undefined,
      }).auth.test());
  try {
    return tokenCheckOf({ answer: await authTest() });
  } catch (thrown) {
    return tokenCheckOf({ thrown });
  }
}
