/** The thread before a message (placeholder until h6's version lands). */
import type { WebClient } from '@slack/web-api';
import type { HistoryMessage } from './types.js';
export async function readHistory(
  _client: Pick<WebClient, 'conversations'>,
  _o: { channel: string; threadTs: string; beforeTs: string; botUserId?: string; botId?: string; appId?: string },
): Promise<HistoryMessage[]> {
  return [];
}
