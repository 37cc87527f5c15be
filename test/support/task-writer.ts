/** What the reply writer's task tests share: a WebClient on the fake Web API, fresh reply targets, task chunks. */
import { WebClient } from '@slack/web-api';
import { beforeAll } from 'vitest';
import type { ReplyChunk, TaskStatus } from '../../lib/bot/index.js';
import type { useFakeWebApi } from './fixtures.js';

/** A `task_update` chunk, as a turn yields it. */
export const task = (id: string, status: TaskStatus, title = id): ReplyChunk => ({ type: 'task_update', id, title, status });

/** A WebClient on `api` (made once the fake is up), and a reply target in a thread of its own each call. */
export function useTaskWriter(api: ReturnType<typeof useFakeWebApi>, o: { channel: string; tsBase: string; eventPrefix: string }) {
  const shared = { client: undefined as unknown as WebClient };
  beforeAll(() => {
    shared.client = new WebClient('xoxb-test', { slackApiUrl: api.url, retryConfig: { retries: 0 } });
  });
  let n = 0;
  const target = () => ({
    channel: o.channel,
    threadTs: `${o.tsBase}.${String(++n).padStart(6, '0')}`,
    eventId: `${o.eventPrefix}-${n}`,
    recipientUser: 'U0PERSON',
    recipientTeam: 'T0AUTOHUB',
  });
  return Object.assign(shared, { target });
}
