/**
 * Bolt's single-token authorization, made to survive a Slack that was
 * unreachable at start-up: Bolt's own caches a failed `auth.test` forever.
 * This caches only a success, and without one still hands out the token.
 */
import type { Authorize } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';

export function resilientAuthorize(client: WebClient, botToken: string): Authorize<boolean> {
  let ids: Promise<{ botId?: string; botUserId?: string }> | undefined;
  return async () => {
    ids ??= client.auth.test({ token: botToken }).then(
      (r) => ({ botId: r.bot_id, botUserId: r.user_id }),
      (error: unknown) => {
        ids = undefined;
        throw error;
      },
    );
    try {
      return { botToken, ...(await ids) };
    } catch {
      return { botToken };
    }
  };
}
