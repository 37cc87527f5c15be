/**
 * Reading a sweep's window back from Slack: every conversation's history,
 * then the threads active in the window.
 *
 * conversations.history lists top-level messages only; a thread's replies
 * come from conversations.replies. A thread is read when its parent (in the
 * window, or up to `reachMs` before its end: a thread started yesterday may
 * have a mention in it today) says its latest reply is in the window and
 * someone besides the bot replied in it. So a sweep costs one call per
 * conversation and page of its history, plus one per thread active in the
 * window and page of it; all three methods are Tier 3, paced by the caller (history and replies slower,
 * 15 a page, for a non-Marketplace app: history-pace.ts).
 */
import { ErrorCode, type WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import { answeredLive, inWindow, repliedInThread, threadToRead, type Conversation, type Me, type SlackMessage } from './found.js';
import type { SweepWindow } from './window.js';

export type HistoryClient = Pick<WebClient, 'auth' | 'users' | 'conversations'>;

export interface ReadBackOptions {
  client: HistoryClient;
  window: SweepWindow;
  /** How far before the window's end thread parents are read: AUTOHUB_CATCHUP_MAX_HOURS. */
  reachMs: number;
  /** Run before every Slack call but auth.test, named by its method: the pace between calls, and the sweep lock kept. */
  beforeCall: (method: string) => Promise<void>;
  /** The `limit` a history or replies page asks for (200; 15 under the non-Marketplace regime: history-pace.ts). @default 200 */
  pageLimit?: () => number;
  /** Sees every history and replies page with the limit it asked (the sweep learns its regime from them). */
  onPage?: (method: string, asked: number, page: { messages?: readonly unknown[]; has_more?: boolean }) => void;
  /** A message the live path would have answered, in the window; `answeredBefore`: its thread holds the bot's reply. */
  found: (conversation: Conversation, m: SlackMessage, me: Me, answeredBefore: boolean) => Promise<void>;
  log: Logger;
}

const slackTs = (ms: number) => (ms / 1000).toFixed(6);

type Page = { has_more?: boolean; response_metadata?: { next_cursor?: string } };

/** Every page of a cursor-paged Slack list. */
async function eachPage<P extends Page>(
  before: () => Promise<void>,
  call: (cursor: string | undefined) => Promise<P>,
  each: (page: P) => Promise<void> | void,
): Promise<void> {
  let cursor: string | undefined;
  do {
    await before();
    const page = await call(cursor);
    await each(page);
    // users.conversations says only next_cursor; history and replies say has_more too.
    cursor = page.has_more === false ? undefined : page.response_metadata?.next_cursor || undefined;
  } while (cursor);
}

/** Resolves with how many conversations and threads were read. */
export async function readBack(o: ReadBackOptions): Promise<{ conversations: number; threads: number }> {
  const { client, beforeCall } = o;
  const auth = await client.auth.test();
  const me: Me = { user: auth.user_id, bot: auth.bot_id, team: auth.team_id };
  const conversations: Conversation[] = [];
  const list = (cursor: string | undefined) =>
    client.users.conversations({ types: 'public_channel,private_channel,mpim,im', exclude_archived: true, limit: 200, ...(cursor ? { cursor } : {}) });
  await eachPage(
    () => beforeCall('users.conversations'),
    list,
    (page) => {
      for (const c of (page.channels ?? []) as Array<{ id?: string; is_im?: boolean }>) if (c.id) conversations.push({ id: c.id, im: c.is_im === true });
    },
  );
  let threads = 0;
  for (const conversation of conversations) threads += await readConversation(o, conversation, me);
  return { conversations: conversations.length, threads };
}

/** One conversation's history and active threads; resolves with how many threads were read. */
async function readConversation(o: ReadBackOptions, conversation: Conversation, me: Me): Promise<number> {
  const { client, window, beforeCall } = o;
  const limit = () => o.pageLimit?.() ?? 200;
  /** One page of a history method: its limit asked now (it may change mid-sweep), and shown to onPage. */
  const paged =
    <P extends { messages?: unknown[]; has_more?: boolean }>(method: string, call: (limit: number) => Promise<P>) =>
    async (): Promise<P> => {
      const asked = limit();
      const page = await call(asked);
      o.onPage?.(method, asked, page);
      return page;
    };
  const seen = new Set<string>();
  const threads: string[] = [];
  const parentsFrom = Math.min(window.from, window.to - o.reachMs);
  const history = (cursor: string | undefined) =>
    paged('conversations.history', (asked) =>
      client.conversations.history({
        channel: conversation.id,
        oldest: slackTs(parentsFrom),
        latest: slackTs(window.to),
        inclusive: true,
        limit: asked,
        ...(cursor ? { cursor } : {}),
      }),
    )();
  await eachPage(
    () => beforeCall('conversations.history'),
    history,
    async (page) => {
      for (const m of (page.messages ?? []) as SlackMessage[]) {
        if (threadToRead(m, window.from, me)) threads.push(m.ts!);
        if (!inWindow(m.ts, window)) continue;
        seen.add(m.ts!);
        if (answeredLive(m, conversation, me)) await o.found(conversation, m, me, repliedInThread(m, me));
      }
    },
  );
  for (const thread of threads) {
    const replies = (cursor: string | undefined) =>
      paged('conversations.replies', (asked) =>
        client.conversations.replies({
          channel: conversation.id,
          ts: thread,
          oldest: slackTs(window.from),
          latest: slackTs(window.to),
          inclusive: true,
          limit: asked,
          ...(cursor ? { cursor } : {}),
        }),
      )();
    try {
      await eachPage(
        () => beforeCall('conversations.replies'),
        replies,
        async (page) => {
          for (const m of (page.messages ?? []) as SlackMessage[]) {
            // The parent comes first on a read of its thread; a reply also sent to the channel was in the history.
            if (!m.ts || m.ts === thread || seen.has(m.ts) || !inWindow(m.ts, window)) continue;
            seen.add(m.ts);
            if (answeredLive(m, conversation, me)) await o.found(conversation, m, me, false);
          }
        },
      );
    } catch (error) {
      // Slack refused this thread for good (thread_not_found: it went meanwhile): the others are still read.
      // Anything else (a 5xx, a dropped connection) ends the sweep, and its window is read again.
      if ((error as { code?: unknown }).code !== ErrorCode.PlatformError) throw error;
      o.log.warn('catchup.thread_unread', { channel: conversation.id, thread, error: (error as { data?: { error?: unknown } }).data?.error });
    }
  }
  return threads.length;
}
