/**
 * A loopback stand-in for Slack's Web API that records every call and can be
 * told to refuse: scripted answers per method, or a real rate window (one
 * call per `intervalMs` per method) that answers 429 with Retry-After.
 *
 * It answers as Slack's method pages say (the table in slack-methods.ts):
 * required arguments and text limits first (`msg_too_long`), then each
 * method's own refusals. Messages read back carry the bot's `bot_id`,
 * `app_id`, `user` and `bot_profile`, as Slack's do; another app's reply can
 * be put in a thread, and a person can press Stop on a stream.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOADING_MESSAGES_MAX, methodRow, PROMPTS_MAX, refusal, STATUS_TIMEOUT_MS, unknownArgs } from './slack-methods.js';

/** Who this app is, as Slack shows it on its messages (auth.test's ids; the envelope's api_app_id). */
export const AUTOHUB_BOT = { user: 'UAUTOHUB', bot_id: 'BAUTOHUB', app_id: 'A0AUTOHUB', team: 'T0AUTOHUB', name: 'autohub' } as const;
/** Another app installed in the same workspace. */
export const OTHER_APP = { user: 'U0OTHERBOT', bot_id: 'B0OTHER', app_id: 'A0OTHER', team: 'T0AUTOHUB', name: 'other-app' } as const;

export interface RecordedCall {
  method: string;
  params: Record<string, string>;
  /** ms since the epoch when the request arrived. */
  at: number;
  /** The status it was answered with. */
  status: number;
  /** True when it was refused as rate limited. */
  refused: boolean;
  /** The body it was answered with. */
  answer?: unknown;
  /** Arguments the method's row does not list (Slack ignores them; recorded so a test can see them). */
  unknown?: string[];
  /** Slack cut `text` to its 40,000 characters (chat.postMessage); `params.text` holds what it kept. */
  truncated?: boolean;
  /** The token it came with, from `Authorization: Bearer` (how the WebClient sends it): which copy wrote it. */
  from?: string;
}

/** One POST to a response_url (FakeWebApi.responseUrl). */
export interface HookCall {
  id: string;
  at: number;
  status: 200 | 404;
  /** Why it was refused: the URL's life was over, or its 5 uses were spent. */
  refused?: 'expired_url' | 'used_url' | 'unknown_url';
  body: Record<string, unknown>;
}

/** Slack: a response_url takes at most 5 messages. */
const RESPONSE_URL_USES = 5;

export interface ScriptedAnswer {
  /** HTTP status; with `reset`, ignored. */
  status: number;
  /**
   * Reset the connection instead of answering. `before`: the call never lands;
   * `after`: a chat.postMessage lands (it is in the thread) and its answer is lost.
   */
  reset?: 'before' | 'after';
  /** Hold the answer this long (a slow Web API). */
  delayMs?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeWebApi {
  /** Base URL ending in `/`, for `slackApiUrl`. */
  url: string;
  calls: RecordedCall[];
  /** Answer the next calls of `method` with these, in order, before answering normally. */
  script(method: string, ...answers: ScriptedAnswer[]): void;
  /**
   * Enforce one accepted call per `intervalMs` for `method`; a call inside the
   * window gets `shape` (429, 200 with error "ratelimited", or the two in turn) and a Retry-After
   * of the time left, in seconds with fractions. An interval of 0 lifts it.
   */
  enforceInterval(method: string, intervalMs: number, shape?: '429' | '200' | 'both', retryAfter?: 'fraction' | 'whole', per?: 'method' | 'channel'): void;
  /**
   * Answer as Slack answers a commercially distributed app outside the Marketplace created since 2025-05-29
   * (https://docs.slack.dev/apis/web-api/rate-limits, "App types and rate limits"): conversations.history and
   * conversations.replies take 1 request a minute (past it 429 with a whole-second Retry-After) and give at
   * most 15 objects a page (`limit` cut to 15). `false` lifts it. Internal and Marketplace apps keep Tier 3.
   */
  nonMarketplace(on: boolean): void;
  /**
   * Hold each chat.postMessage and chat.startStream (a reply's first write) this long before it lands; one whose
   * connection drops meanwhile (its sender died) never lands. 0 to stop; Infinity: until `releasePosts()`
   * (a test that needs a turn mid-post at a step of its own waits on state, not on a hold's length).
   */
  holdPosts(ms: number): void;
  /** Lets every held post go on at once, and holds no more. */
  releasePosts(): void;
  /** Posts being held now. */
  readonly held: number;
  /** Resolves once a post is being held (its sender is mid-turn); rejects after `timeoutMs`. */
  postHeld(timeoutMs: number): Promise<void>;
  /**
   * Messages in the channels: successful chat.postMessage calls, and streamed
   * messages (chat.startStream) once final (stopped or updated), as one entry
   * each with their text and metadata.
   */
  posts(): RecordedCall[];
  /**
   * A response_url as Slack mints one for a slash command or an interaction: it takes a message (a JSON POST) up
   * to 5 times within 30 minutes of the invocation (https://docs.slack.dev/interactivity/handling-user-interaction),
   * here within `validMs` (the drill compresses the 30 minutes by its factor); past either it answers 404.
   */
  responseUrl(id: string, validMs: number): string;
  /** What reached each response_url, in order: accepted (200) or refused (404, with why). */
  readonly hooks: HookCall[];
  /** Streamed messages by ts, as Slack holds them. */
  streams: Map<string, FakeStream>;
  /**
   * The tasks a message of this app's shows now, by task id in their last state: a stream's (its chunks, or the
   * blocks of a chat.update since), a post's `task_card` and `plan` blocks (after any chat.update). Undefined for
   * a ts that is no message of this app's.
   */
  tasksOf(ts: string): Map<string, ShownTask> | undefined;
  /** How long Slack keeps a stream open before it refuses appends. @default 300000 */
  streamLifeMs: number;
  /**
   * A message Slack holds in `channel` (the simulated Slack records each
   * mention it sends): served by conversations.history and users.conversations.
   * With a `thread_ts` other than its own `ts` it is a person's reply in that
   * thread: served by conversations.replies, and counted on its parent.
   */
  addMessage(channel: string, message: { ts: string; user?: string; text?: string; im?: boolean; thread_ts?: string }): void;
  /**
   * Until called again with null, answer every call of `method` with `answer`
   * (a Web API outage). Scripted answers still come first.
   */
  fail(method: string, answer: ScriptedAnswer | null): void;
  /**
   * The person presses Stop on the stream `ts`: later appends and the stop
   * answer `stopped_by_user`; the message keeps what was streamed so far.
   * False when no stream by that ts is open.
   */
  pressStop(ts: string): boolean;
  /** Press Stop `afterMs` after each stream `test` picks has started (a share of people stopping mid-stream); null to stop. */
  pressStopWhen(test: ((st: FakeStream) => boolean) | null, afterMs?: number): void;
  /** Another app replies in a thread (its own bot_id, app_id and bot user); returns the reply's ts. */
  addOtherAppReply(channel: string, threadTs: string, text?: string): string;
  /** Channels where Slack refuses streams (`channel_type_not_supported`); Slack's docs do not say which kinds. */
  refuseStreamsIn: Set<string>;
  /**
   * The thinking status a person sees under a thread now (assistant.threads.setStatus), on the fake's clock:
   * gone two minutes after it was set, when this app posts in the thread, or when set to "". Undefined when none.
   */
  statusOf(channel: string, threadTs: string): { status: string; loadingMessages: string[]; setAt: number } | undefined;
  /** The suggested prompts set on a thread (the last call's), and how many calls set them. */
  promptsOf(channel: string, threadTs: string): { prompts: Array<{ title: string; message: string }>; calls: number } | undefined;
  /** An assistant thread's title (the last one set), and how many calls set one. */
  titleOf(channel: string, threadTs: string): { title: string; calls: number } | undefined;
  close(): Promise<void>;
}

async function readParams(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const type = String(req.headers['content-type'] ?? '');
  const params: Record<string, string> = {};
  if (type.includes('application/json')) {
    try {
      for (const [k, v] of Object.entries(JSON.parse(raw) as Record<string, unknown>)) {
        params[k] = typeof v === 'string' ? v : JSON.stringify(v);
      }
    } catch {
      /* recorded with no params */
    }
  } else {
    for (const [k, v] of new URLSearchParams(raw)) params[k] = v;
  }
  const url = new URL(req.url ?? '/', 'http://x');
  for (const [k, v] of url.searchParams) params[k] ??= v;
  return params;
}

/** A streamed message as Slack holds it. */
export interface FakeStream {
  channel: string;
  thread_ts: string | undefined;
  text: string;
  /** `stopped_by_user`: the person pressed Stop; the message holds what was streamed until then. */
  state: 'streaming' | 'stopped' | 'expired' | 'updated' | 'stopped_by_user';
  metadata?: string;
  startedAt: number;
  appends: number;
  /** How its text comes (`markdown_text` or `chunks`): Slack wants the same on every call (`streaming_mode_mismatch`). */
  mode?: 'markdown_text' | 'chunks';
  /** The token of the call that started it (see RecordedCall.from). */
  from?: string;
  /** Its tasks by id, each in its last state (a `task_update` of an id changes that task in place; a chat.update replaces them). */
  tasks: Map<string, ShownTask>;
  /** The plan's title (`plan_update`). */
  plan?: string;
  /** `task_display_mode` at the start (Slack's default: timeline). */
  taskDisplayMode: 'timeline' | 'plan';
  /**
   * What the message shows, in the order its calls sent it: text, a task where it first appeared (by id),
   * blocks (a blocks chunk's, and chat.stopStream's `blocks`, "appended to the end of the message").
   */
  shows: Array<{ text: string } | { task: string } | { blocks: Array<Record<string, unknown>> }>;
}

/** A stream call's `chunks` as the fake reads them: their text, task and plan updates, and all of them in order. */
export interface ReadChunks {
  text: string;
  tasks: Array<{ id: string; title: string; status: string; details?: string; output?: string }>;
  plan?: string;
  items: FakeStream['shows'];
}

/**
 * A stream call's `chunks` as Slack reads them (chat.appendStream's page, "Using the chunks parameter":
 * "markdown text chunk objects, task update chunk objects, plan update chunks, or blocks chunks"; the objects
 * are @slack/types 3.2 chunk.d.ts): `invalid` when one is not a chunk Slack knows, or a blocks chunk holds
 * no block or more than BLOCKS_CHUNK_MAX ("Maximum of 50 blocks").
 */
function readChunks(raw: string | undefined): ReadChunks | 'invalid' {
  if (raw === undefined) return { text: '', tasks: [], items: [] };
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return 'invalid';
  }
  if (!Array.isArray(list)) return 'invalid';
  const out: ReadChunks = { text: '', tasks: [], items: [] };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  for (const c of list as Array<Record<string, unknown>>) {
    if (c?.type === 'markdown_text' && typeof c.text === 'string') {
      out.text += c.text;
      out.items.push({ text: c.text });
    } else if (c?.type === 'plan_update' && typeof c.title === 'string') out.plan = c.title;
    else if (
      c?.type === 'task_update' &&
      typeof c.id === 'string' &&
      typeof c.title === 'string' &&
      ['pending', 'in_progress', 'complete', 'error'].includes(String(c.status))
    ) {
      const details = str(c.details);
      const output = str(c.output);
      out.tasks.push({ id: c.id, title: c.title, status: String(c.status), ...(details ? { details } : {}), ...(output ? { output } : {}) });
      out.items.push({ task: c.id });
    } else if (c?.type === 'blocks' && Array.isArray(c.blocks) && c.blocks.length > 0 && c.blocks.length <= BLOCKS_CHUNK_MAX) {
      out.items.push({ blocks: c.blocks as Array<Record<string, unknown>> });
    } else return 'invalid';
  }
  return out;
}

/** A blocks chunk: "An array of blocks. Maximum of 50 blocks." (@slack/types 3.2 BlocksChunk; Slack's changelog 2026-04-16). */
export const BLOCKS_CHUNK_MAX = 50;

/**
 * A task as a message shows it (a stream's `task_update`, a posted `task_card`), in its last state. A stream's
 * `details` and `output` are every update's joined: Slack adds each update's to the card (python-slack-sdk
 * 3.40.0's example sends a second `details` as a delta); a post's are its task_card's.
 */
export type ShownTask = { title: string; status: string; details?: string; output?: string };

/** Block Kit: "You can include up to 50 blocks in each message" (https://docs.slack.dev/block-kit). */
export const MESSAGE_BLOCKS_MAX = 50;
/** Markdown block: the markdown blocks of one payload hold at most 12,000 characters together (https://docs.slack.dev/reference/block-kit/blocks/markdown-block). */
export const MARKDOWN_BLOCKS_MAX = 12_000;
const TASK_STATUSES = ['pending', 'in_progress', 'complete', 'error'];

/**
 * A post's or an update's `blocks` as Slack reads them: the text its markdown blocks show, the tasks of its
 * `task_card` and `plan` blocks (https://docs.slack.dev/reference/block-kit/blocks/task-card-block, plan-block)
 * by task_id, the plan's title; `invalid` (Slack's invalid_blocks) past 50 blocks, past 12,000 characters of
 * markdown, or a markdown, task_card or plan block without what its page requires. Other blocks pass as given.
 */
export function readBlocks(raw: string | undefined): { markdown?: string; tasks: Map<string, ShownTask>; plan?: string } | 'invalid' {
  const out: { markdown?: string; tasks: Map<string, ShownTask>; plan?: string } = { tasks: new Map() };
  if (raw === undefined) return out;
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return 'invalid';
  }
  if (!Array.isArray(list) || list.length > MESSAGE_BLOCKS_MAX) return 'invalid';
  const card = (c: Record<string, unknown> | undefined) =>
    typeof c?.task_id === 'string' && typeof c.title === 'string' && (c.status === undefined || TASK_STATUSES.includes(String(c.status)));
  const show = (c: Record<string, unknown>) => out.tasks.set(String(c.task_id), { title: String(c.title), status: String(c.status ?? 'pending') });
  for (const b of list as Array<Record<string, unknown> | undefined>) {
    if (b?.type === 'markdown') {
      if (typeof b.text !== 'string') return 'invalid';
      out.markdown = (out.markdown === undefined ? '' : `${out.markdown}\n`) + b.text;
    } else if (b?.type === 'task_card') {
      if (!card(b)) return 'invalid';
      show(b);
    } else if (b?.type === 'plan') {
      const tasks = (b.tasks ?? []) as Array<Record<string, unknown> | undefined>;
      if (typeof b.title !== 'string' || !Array.isArray(tasks) || !tasks.every(card)) return 'invalid';
      out.plan = b.title;
      for (const t of tasks) show(t!);
    }
  }
  if ([...(out.markdown ?? '')].length > MARKDOWN_BLOCKS_MAX) return 'invalid';
  return out;
}

interface Held {
  ts: string;
  user?: string;
  text?: string;
  thread_ts?: string;
}

/** A conversation as the fake holds it: people's top-level messages, and their replies by the parent's ts. */
interface HeldConversation {
  im: boolean;
  messages: Held[];
  threads: Map<string, Held[]>;
  /** `messages` newest first, kept until one is added: a catch-up sweep reads a day of history, page by page. */
  newestFirst?: Held[];
}

/** Slack's `oldest` / `latest` / `inclusive` on a message's ts (`latest` defaults to now, `oldest` to 0). */
function inRange(params: Record<string, string>): (m: { ts: string }) => boolean {
  const inclusive = params.inclusive === 'true' || params.inclusive === '1';
  const oldest = Number(params.oldest ?? 0);
  const latest = params.latest ? Number(params.latest) : Infinity;
  return (m) => (inclusive ? Number(m.ts) >= oldest && Number(m.ts) <= latest : Number(m.ts) > oldest && Number(m.ts) < latest);
}

/** A message in a thread, as Slack holds it: this app's (a post, a stream) or another app's. */
interface ThreadReply {
  channel: string;
  /** Empty for this app's message at the top level of its channel (a schedule's answer). */
  thread_ts: string;
  ts: string;
  text?: string;
  metadata?: string;
  by: typeof AUTOHUB_BOT | typeof OTHER_APP;
}

/** Slack's ts order: whole seconds, then the digits after the dot (too many digits for one double). */
export function compareTs(a: string, b: string): number {
  const [as = '0', af = ''] = a.split('.');
  const [bs = '0', bf = ''] = b.split('.');
  return Number(as) - Number(bs) || (af.padEnd(6, '0') < bf.padEnd(6, '0') ? -1 : af.padEnd(6, '0') > bf.padEnd(6, '0') ? 1 : 0);
}

/**
 * Slack's cursor paging over a list: `limit` per page (the method's default
 * and maximum from its row), an opaque cursor to the next; undefined for a
 * cursor this method never gave (`invalid_cursor`).
 */
function paged<T>(method: string, items: readonly T[], params: Record<string, string>): { page: T[]; next: string } | undefined {
  const paging = methodRow(method)?.paging ?? { defaultLimit: 100, maxLimit: 1000 };
  const limit = Math.max(1, Math.min(paging.maxLimit, Number(params.limit ?? paging.defaultLimit) || paging.defaultLimit));
  let start = 0;
  if (params.cursor) {
    const decoded = /^next:(\d+)$/.exec(Buffer.from(params.cursor, 'base64').toString('utf8'));
    if (!decoded) return undefined;
    start = Number(decoded[1]);
  }
  const more = start + limit < items.length;
  return { page: items.slice(start, start + limit), next: more ? Buffer.from(`next:${start + limit}`).toString('base64') : '' };
}

/** A bot's message as conversations.replies shows it: bot_id, app_id, the bot user and bot_profile (https://docs.slack.dev/reference/objects/message-object). */
function botMessage(r: ThreadReply, withMetadata: boolean): Record<string, unknown> {
  return {
    type: 'message',
    ts: r.ts,
    user: r.by.user,
    bot_id: r.by.bot_id,
    app_id: r.by.app_id,
    text: r.text ?? '',
    thread_ts: r.thread_ts,
    bot_profile: { id: r.by.bot_id, app_id: r.by.app_id, name: r.by.name, team_id: r.by.team, deleted: false },
    // conversations.replies: metadata only with include_all_metadata (https://docs.slack.dev/reference/methods/conversations.replies).
    ...(withMetadata && r.metadata ? { metadata: JSON.parse(r.metadata) as unknown } : {}),
  };
}

/** This app's message at the top level, as conversations.history shows it (no thread_ts; metadata only with include_all_metadata). */
function topLevelMessage(r: ThreadReply, withMetadata: boolean): Record<string, unknown> {
  const { thread_ts: _none, ...m } = botMessage(r, withMetadata);
  return m;
}

const truthy = (v: string | undefined) => v === 'true' || v === '1';

/** The methods Slack limits for non-Marketplace apps, and the objects a page gives them (https://docs.slack.dev/apis/web-api/rate-limits). */
const HISTORY_METHODS = new Set(['conversations.history', 'conversations.replies']);
const NON_MARKETPLACE_OBJECTS = 15;

function defaultAnswer(
  method: string,
  params: Record<string, string>,
  newTs: () => string,
  replies: readonly ThreadReply[],
  history: Map<string, HeldConversation> = new Map(),
): unknown {
  switch (method) {
    case 'users.conversations': {
      const paging = paged(
        method,
        [...history].map(([id, c]) => ({ id, is_im: c.im, is_channel: !c.im })),
        params,
      );
      if (!paging) return { ok: false, error: 'invalid_cursor' };
      return { ok: true, channels: paging.page, response_metadata: { next_cursor: paging.next } };
    }
    case 'conversations.history': {
      const channel = history.get(params.channel ?? '');
      // This app's own top-level messages are in the channel's history too, among people's, newest first
      // (https://docs.slack.dev/reference/methods/conversations.history): the catch-up's filter of the bot's own is read against them.
      const own = replies.filter((r) => r.thread_ts === '' && r.channel === params.channel);
      if (!channel && own.length === 0) return { ok: false, error: 'channel_not_found' };
      const withMetadata = truthy(params.include_all_metadata);
      const people = channel ? (channel.newestFirst ??= [...channel.messages].sort((a, b) => compareTs(b.ts, a.ts))) : [];
      type Listed = { ts: string } & Record<string, unknown>;
      const all: readonly Listed[] =
        own.length === 0
          ? (people as readonly Held[] as unknown as readonly Listed[])
          : [...(people as unknown as Listed[]), ...own.map((r) => topLevelMessage(r, withMetadata) as Listed)].sort((a, b) => compareTs(b.ts, a.ts));
      const inWindow = all.filter(inRange(params));
      const paging = paged(method, inWindow, params);
      if (!paging) return { ok: false, error: 'invalid_cursor' };
      const { page, next } = paging;
      // Who replied in each thread, as Slack reports it on a parent message: one pass over the replies for the
      // page (a pass per message made a drill of thousands of mentions quadratic, and stalled its event loop).
      const onPage = new Set(page.map((m) => m.ts));
      const threads = new Map<string, { count: number; users: Set<string>; latest: string }>();
      for (const r of replies) {
        if (!onPage.has(r.thread_ts) || r.channel !== params.channel) continue;
        const t = threads.get(r.thread_ts) ?? { count: 0, users: new Set<string>(), latest: r.ts };
        t.count += 1;
        t.users.add(r.by.user);
        if (compareTs(r.ts, t.latest) > 0) t.latest = r.ts;
        threads.set(r.thread_ts, t);
      }
      // And people's replies (https://docs.slack.dev/reference/methods/conversations.history: top-level messages only).
      for (const m of page) {
        for (const r of channel?.threads.get(m.ts) ?? []) {
          const t = threads.get(m.ts) ?? { count: 0, users: new Set<string>(), latest: r.ts };
          t.count += 1;
          t.users.add(r.user ?? '');
          if (compareTs(r.ts, t.latest) > 0) t.latest = r.ts;
          threads.set(m.ts, t);
        }
      }
      // A parent with replies: thread_ts, reply_count, reply_users, reply_users_count, latest_reply (the message object).
      const messages = page.map((m) => {
        const t = threads.get(m.ts);
        return {
          type: 'message',
          ...m,
          ...(t ? { thread_ts: m.ts, reply_count: t.count, reply_users: [...t.users], reply_users_count: t.users.size, latest_reply: t.latest } : {}),
        };
      });
      return { ok: true, messages, has_more: next !== '', response_metadata: { next_cursor: next } };
    }
    case 'conversations.replies': {
      // The thread as Slack holds it: its parent first (when the fake knows it), then every reply in ts order, people's
      // and apps', those in [oldest, latest] (https://docs.slack.dev/reference/methods/conversations.replies).
      const channel = history.get(params.channel ?? '');
      const parent = channel?.messages.find((m) => m.ts === params.ts);
      const withMetadata = truthy(params.include_all_metadata);
      const inThread = [
        ...replies.filter((r) => r.channel === params.channel && r.thread_ts === params.ts).map((r) => ({ ts: r.ts, message: botMessage(r, withMetadata) })),
        ...(channel?.threads.get(params.ts ?? '') ?? []).map((r) => ({
          ts: r.ts,
          message: { type: 'message', ...r, ...(parent?.user ? { parent_user_id: parent.user } : {}) },
        })),
      ].sort((a, b) => compareTs(a.ts, b.ts));
      const messages: unknown[] = [
        ...(parent
          ? [
              {
                type: 'message',
                ...parent,
                ...(inThread.length ? { thread_ts: parent.ts, reply_count: inThread.length, latest_reply: inThread.at(-1)!.ts } : {}),
              },
            ]
          : []),
        ...inThread.filter(inRange(params)).map((r) => r.message),
      ];
      const paging = paged(method, messages, params);
      if (!paging) return { ok: false, error: 'invalid_cursor' };
      return { ok: true, messages: paging.page, has_more: paging.next !== '', response_metadata: { next_cursor: paging.next } };
    }
    case 'auth.test':
      return { ok: true, user_id: AUTOHUB_BOT.user, bot_id: AUTOHUB_BOT.bot_id, team_id: AUTOHUB_BOT.team, team: 'autohub-test' };
    case 'chat.postMessage':
    case 'chat.postEphemeral':
      return {
        ok: true,
        channel: params.channel,
        ts: newTs(),
      };
    case 'conversations.list':
      return { ok: true, channels: [], response_metadata: { next_cursor: '' } };
    case 'users.list':
      return { ok: true, members: [], response_metadata: { next_cursor: '' } };
    default:
      return { ok: true };
  }
}

/** posts() lists a streamed message under this pseudo-method, once, whatever its calls. */
export const STREAMED = 'streamed';

/** A chat.postMessage that put a message in the channel: answered 200 and not `ok: false`. */
export function landed(c: RecordedCall): boolean {
  return (
    (c.method === 'chat.postMessage' || c.method === STREAMED) && c.status === 200 && !c.refused && (c.answer as { ok?: unknown } | undefined)?.ok !== false
  );
}

export async function startFakeWebApi(options: { now?: () => number } = {}): Promise<FakeWebApi> {
  const now = options.now ?? Date.now;
  const scripts = new Map<string, ScriptedAnswer[]>();
  const windows = new Map<
    string,
    { intervalMs: number; shape: '429' | '200' | 'both'; last: Map<string, number>; refusals: number; whole: boolean; perChannel: boolean }
  >();
  const outages = new Map<string, ScriptedAnswer>();
  /** The non-Marketplace page cap on history and replies (nonMarketplace), when on. */
  let objectCap: number | undefined;
  const history = new Map<string, HeldConversation>();
  const streams = new Map<string, FakeStream>();
  /** Replies other apps put in threads, by ts. */
  const foreign = new Map<string, ThreadReply>();
  /** Posts changed since by chat.update, by ts: what Slack now shows instead of what was posted. */
  const edits = new Map<string, Record<string, string>>();
  /** A landed post as Slack holds it now (its text and metadata after any chat.update). */
  const current = (c: RecordedCall): RecordedCall => {
    const edit = edits.get((c.answer as { ts?: string } | undefined)?.ts ?? '');
    return edit ? { ...c, params: { ...c.params, ...edit } } : c;
  };
  let stopWhen: { test: (st: FakeStream) => boolean; afterMs: number } | undefined;
  /** Slack's AI-app state by `channel:thread_ts`: the status shown, the prompts, the title. */
  const statuses = new Map<string, { status: string; loadingMessages: string[]; setAt: number }>();
  const prompts = new Map<string, { prompts: Array<{ title: string; message: string }>; calls: number }>();
  const titles = new Map<string, { title: string; calls: number }>();
  const threadKey = (channel: string | undefined, ts: string | undefined) => `${channel ?? ''}:${ts ?? ''}`;
  /**
   * assistant.threads.setStatus, setSuggestedPrompts and setTitle
   * (https://docs.slack.dev/reference/methods/assistant.threads.setStatus, ...setSuggestedPrompts, ...setTitle):
   * what each keeps, and the limits their pages state without an error code (answered invalid_arguments).
   */
  const assistantAnswer = (method: string, params: Record<string, string>, at: number): ScriptedAnswer | undefined => {
    const refuse = (error: string): ScriptedAnswer => ({ status: 200, body: { ok: false, error } });
    const list = (raw: string | undefined): unknown[] | undefined => {
      try {
        const v = JSON.parse(raw ?? '') as unknown;
        return Array.isArray(v) ? v : undefined;
      } catch {
        return undefined;
      }
    };
    const key = threadKey(params.channel_id, params.thread_ts);
    switch (method) {
      case 'assistant.threads.setStatus': {
        const loading = params.loading_messages === undefined ? [] : list(params.loading_messages);
        if (!loading || loading.length > LOADING_MESSAGES_MAX || !loading.every((m) => typeof m === 'string')) return refuse('invalid_arguments');
        if (params.status === '') statuses.delete(key);
        else statuses.set(key, { status: params.status ?? '', loadingMessages: loading as string[], setAt: at });
        return { status: 200, body: { ok: true } };
      }
      case 'assistant.threads.setSuggestedPrompts': {
        const given = list(params.prompts);
        const wellFormed = (p: unknown) => typeof (p as { title?: unknown }).title === 'string' && typeof (p as { message?: unknown }).message === 'string';
        if (!given || given.length === 0 || given.length > PROMPTS_MAX || !given.every(wellFormed)) return refuse('invalid_arguments');
        prompts.set(key, { prompts: given as Array<{ title: string; message: string }>, calls: (prompts.get(key)?.calls ?? 0) + 1 });
        return { status: 200, body: { ok: true } };
      }
      case 'assistant.threads.setTitle':
        titles.set(key, { title: params.title ?? '', calls: (titles.get(key)?.calls ?? 0) + 1 });
        return { status: 200, body: { ok: true } };
      default:
        return undefined;
    }
  };
  /**
   * A new message's ts: its time in microseconds, and always later than every message the fake holds or has
   * given a ts (a person's too), as Slack's are: "ts is the unique (per-channel) timestamp"
   * (https://api.slack.com/events/message), and a channel's messages are ordered by it, so a reply is
   * always later than the message it answers. One clock for all channels keeps each channel's in order.
   */
  const nextTs = (at: number) => {
    lastMicros = Math.max(Math.floor(at) * 1000, lastMicros + 1);
    return `${Math.floor(lastMicros / 1e6)}.${String(lastMicros % 1e6).padStart(6, '0')}`;
  };
  /** A ts the fake did not mint (a person's message): later ones must come after it. */
  const seenTs = (ts: string) => {
    const [sec, frac = ''] = ts.split('.');
    const micros = Number(sec) * 1e6 + Number(frac.padEnd(6, '0').slice(0, 6));
    if (Number.isFinite(micros)) lastMicros = Math.max(lastMicros, micros);
  };
  /** Whether `ts` is a message a person wrote (the fake holds them as the conversation's history). */
  const personal = (channel: string, ts: string) => history.get(channel)?.messages.some((m) => m.ts === ts) === true;
  /** Whether `ts` is a message this app posted with chat.postMessage. */
  const posted = (ts: string) => calls.some((c) => landed(c) && (c.answer as { ts?: string } | undefined)?.ts === ts);
  /** A DM: Slack's ids for them begin with D; the fake also knows the ones it was told of as `im`. */
  const isDm = (channel: string) => history.get(channel)?.im === true || channel.startsWith('D');
  const pressStop = (ts: string) => {
    const st = streams.get(ts);
    if (!st || st.state !== 'streaming') return false;
    st.state = 'stopped_by_user';
    return true;
  };

  /**
   * Slack's streaming methods (https://docs.slack.dev/reference/methods/chat.startStream, chat.appendStream,
   * chat.stopStream) and chat.update of a streamed message: a stream per ts, refused after a stop, a Stop press,
   * past the stream's life, or when the message is not this app's.
   */
  const streamAnswer = (method: string, params: Record<string, string>, at: number): ScriptedAnswer | undefined => {
    const refuse = (error: string): ScriptedAnswer => ({ status: 200, body: { ok: false, error } });
    if (params.markdown_text !== undefined && params.chunks !== undefined && method !== 'chat.update')
      return refuse('cannot_provide_both_markdown_text_and_chunks');
    const mode = params.chunks !== undefined ? 'chunks' : params.markdown_text !== undefined ? 'markdown_text' : undefined;
    // Text comes as `markdown_text`, or as `chunks` of type markdown_text (what web-api's chatStream helper sends);
    // task and plan updates come as chunks too. chat.update takes no chunks (its page lists none).
    const read: ReadChunks | 'invalid' = method === 'chat.update' ? { text: '', tasks: [], items: [] } : readChunks(params.chunks);
    if (read === 'invalid') return refuse('invalid_chunks');
    // chat.stopStream's `blocks` (web-api 8.2's ChatStopStreamArguments: "Block formatted elements will be appended to the end of the message"): at most 50, as any message's.
    const endBlocks = method === 'chat.stopStream' ? readBlocks(params.blocks) : undefined;
    if (endBlocks === 'invalid') return refuse('invalid_blocks');
    const markdown = (params.markdown_text ?? '') + read.text;
    const shown = (st: FakeStream) => {
      if (params.markdown_text) st.shows.push({ text: params.markdown_text });
      for (const item of read.items) if (!('task' in item) || !st.tasks.has(item.task)) st.shows.push(item);
      for (const t of read.tasks) {
        const was = st.tasks.get(t.id);
        const details = (was?.details ?? '') + (t.details ?? '');
        const output = (was?.output ?? '') + (t.output ?? '');
        st.tasks.set(t.id, { title: t.title, status: t.status, ...(details ? { details } : {}), ...(output ? { output } : {}) });
      }
      if (read.plan !== undefined) st.plan = read.plan;
      if (params.blocks !== undefined && endBlocks) st.shows.push({ blocks: JSON.parse(params.blocks) as Array<Record<string, unknown>> });
    };
    const live = (st: FakeStream | undefined) => {
      if (st && st.state === 'streaming' && at - st.startedAt > api.streamLifeMs) st.state = 'expired';
      return st;
    };
    /** What an append or a stop gets on a ts that is no stream of this app's. */
    const notAStream = (ts: string) =>
      foreign.has(ts) || personal(params.channel ?? '', ts)
        ? refuse('message_not_owned_by_app')
        : posted(ts)
          ? refuse('message_not_in_streaming_state')
          : refuse('message_not_found');
    switch (method) {
      case 'chat.startStream': {
        const channel = params.channel ?? '';
        if (api.refuseStreamsIn.has(channel)) return refuse('channel_type_not_supported');
        // "Required when streaming to channels": outside a DM Slack wants to know whose stream it is.
        if (!isDm(channel) && !params.recipient_user_id) return refuse('missing_recipient_user_id');
        if (!isDm(channel) && !params.recipient_team_id) return refuse('missing_recipient_team_id');
        // Our reading of `no_text`: text sent, but empty (a stream may also start with no text argument at all).
        if (params.markdown_text === '' && params.chunks === undefined) return refuse('no_text');
        // "Acceptable values: timeline plan"; the page names no error for another: our reading, invalid_arguments.
        const display = params.task_display_mode ?? 'timeline';
        if (display !== 'timeline' && display !== 'plan') return refuse('invalid_arguments');
        const ts = nextTs(at);
        const st: FakeStream = {
          channel,
          thread_ts: params.thread_ts,
          text: markdown,
          state: 'streaming',
          startedAt: at,
          appends: 0,
          ...(mode ? { mode } : {}),
          tasks: new Map(),
          taskDisplayMode: display,
          shows: [],
        };
        shown(st);
        streams.set(ts, st);
        if (stopWhen?.test(st)) setTimeout(() => pressStop(ts), stopWhen.afterMs).unref();
        return { status: 200, body: { ok: true, channel: params.channel, ts } };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const ts = params.ts ?? '';
        const st = live(streams.get(ts));
        if (!st) return notAStream(ts);
        if (st.state === 'stopped_by_user') return refuse('stopped_by_user');
        if (st.state !== 'streaming') return refuse('message_not_in_streaming_state');
        if (mode && st.mode && mode !== st.mode) return refuse('streaming_mode_mismatch');
        if (mode) st.mode ??= mode;
        st.text += markdown;
        shown(st);
        if (method === 'chat.appendStream') st.appends += 1;
        else {
          st.state = 'stopped';
          if (params.metadata) st.metadata = params.metadata;
        }
        return { status: 200, body: { ok: true, channel: st.channel, ts } };
      }
      case 'chat.update': {
        const ts = params.ts ?? '';
        // chat.update's page has no message_not_owned_by_app: someone else's message is cant_update_message there.
        if (foreign.has(ts) || personal(params.channel ?? '', ts)) return refuse('cant_update_message');
        const st = live(streams.get(ts));
        if (!st) {
          if (!posted(ts)) return refuse('message_not_found');
          const edit: Record<string, string> = { ...edits.get(ts) };
          // The text shown is the markdown when it is sent so, else the blocks' markdown, else `text`; metadata kept
          // unless replaced. `text` without `blocks` removes the blocks (chat.update's page); so does `markdown_text` (our reading).
          const blocks = readBlocks(params.blocks);
          const shownText = blocks !== 'invalid' ? blocks.markdown : undefined;
          if (params.markdown_text !== undefined) edit.text = edit.markdown_text = params.markdown_text;
          else if (shownText !== undefined) edit.text = shownText;
          else if (params.text !== undefined) edit.text = params.text;
          if (params.blocks !== undefined) edit.blocks = params.blocks;
          else if (params.text !== undefined || params.markdown_text !== undefined) edit.blocks = '[]';
          if (params.metadata) edit.metadata = params.metadata;
          edits.set(ts, edit);
          return { status: 200, body: { ok: true, channel: params.channel, ts } };
        }
        if (st.state === 'streaming') return refuse('streaming_state_conflict');
        // chat.update takes `markdown_text` as the streaming methods do (https://docs.slack.dev/reference/methods/chat.update).
        // Its blocks replace the message's (the tasks a stream showed among them); `text` or `markdown_text` without
        // `blocks` removes them ("If the text argument is provided and blocks are not provided, the blocks will be removed").
        const blocks = readBlocks(params.blocks);
        const shownText = blocks !== 'invalid' ? blocks.markdown : undefined;
        st.text = params.markdown_text ?? shownText ?? params.text ?? st.text;
        if (blocks !== 'invalid' && params.blocks !== undefined) {
          st.tasks = blocks.tasks;
          if (blocks.plan !== undefined) st.plan = blocks.plan;
          else delete st.plan;
        } else if (params.text !== undefined || params.markdown_text !== undefined) {
          st.tasks = new Map();
          delete st.plan;
        }
        st.state = 'updated';
        if (params.metadata) st.metadata = params.metadata;
        return { status: 200, body: { ok: true, channel: st.channel, ts } };
      }
      default:
        return undefined;
    }
  };
  /**
   * What Slack refuses before acting, from the method's row: a missing required argument, a text over its
   * limit (`msg_too_long`), `text` with `markdown_text` (`markdown_text_conflict`), a post with no text
   * (`no_text`). A chat.postMessage `text` past 40,000 characters is cut, not refused.
   */
  const checked = (method: string, params: Record<string, string>): { answer?: ScriptedAnswer; truncated?: boolean } => {
    const refuse = (error: string) => ({ answer: { status: 200, body: { ok: false, error } } });
    const verdict = refusal(method, params);
    if (verdict && 'error' in verdict) return refuse(verdict.error);
    if (method === 'chat.postMessage' || method === 'chat.update') {
      if (params.markdown_text !== undefined && (params.text !== undefined || params.blocks !== undefined)) return refuse('markdown_text_conflict');
      if (!params.text && !params.markdown_text && !params.blocks && !params.attachments) return refuse('no_text');
      if (readBlocks(params.blocks) === 'invalid') return refuse('invalid_blocks');
    }
    if (verdict && 'truncate' in verdict) {
      for (const [arg, max] of Object.entries(verdict.truncate)) params[arg] = [...params[arg]!].slice(0, max).join('');
      return { truncated: true };
    }
    return {};
  };
  /** A streamed message as an entry of posts(), shaped like the post it stands for. */
  const asPost = (ts: string, st: FakeStream): RecordedCall => ({
    method: STREAMED,
    params: { channel: st.channel, ...(st.thread_ts ? { thread_ts: st.thread_ts } : {}), text: st.text, ...(st.metadata ? { metadata: st.metadata } : {}) },
    at: st.startedAt,
    status: 200,
    refused: false,
    answer: { ok: true, ts },
    ...(st.from ? { from: st.from } : {}),
  });
  /** Every reply in every thread: this app's posts and streams, and other apps' replies. */
  const threadReplies = (): ThreadReply[] => {
    const out: ThreadReply[] = [];
    for (const call of calls) {
      const c = current(call);
      const ts = (c.answer as { ts?: string } | undefined)?.ts;
      const topLevel = c.method === 'chat.postMessage' && !c.params.thread_ts;
      if (landed(c) && ts && ((c.params.thread_ts && c.params.thread_ts !== ts) || topLevel)) {
        out.push({
          channel: c.params.channel ?? '',
          thread_ts: c.params.thread_ts ?? '',
          ts,
          text: c.params.text ?? c.params.markdown_text,
          ...(c.params.metadata ? { metadata: c.params.metadata } : {}),
          by: AUTOHUB_BOT,
        });
      }
    }
    for (const [ts, st] of streams) {
      if (st.thread_ts)
        out.push({ channel: st.channel, thread_ts: st.thread_ts, ts, text: st.text, ...(st.metadata ? { metadata: st.metadata } : {}), by: AUTOHUB_BOT });
    }
    out.push(...foreign.values());
    return out;
  };
  const calls: RecordedCall[] = [];
  let lastMicros = 0;
  let holdMs = 0;
  let held = 0;
  /** What each post held until released waits on. */
  const releases = new Set<() => void>();
  const heldWaiters = new Set<() => void>();

  const hookUrls = new Map<string, { until: number; uses: number }>();
  const hooks: HookCall[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith('/hooks/')) {
      const id = decodeURIComponent(path.slice('/hooks/'.length));
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          /* recorded with an empty body */
        }
        const hook = hookUrls.get(id);
        const at = now();
        const refused = !hook ? 'unknown_url' : at > hook.until ? 'expired_url' : hook.uses >= RESPONSE_URL_USES ? 'used_url' : undefined;
        if (hook && !refused) hook.uses += 1;
        hooks.push({ id, at, status: refused ? 404 : 200, ...(refused ? { refused } : {}), body });
        res.writeHead(refused ? 404 : 200, { 'content-type': 'text/plain' }).end(refused ?? 'ok');
      });
      return;
    }
    const method = path.split('/').filter(Boolean).pop() ?? '';
    readParams(req)
      .then(async (params) => {
        if (holdMs > 0 && (method === 'chat.postMessage' || method === 'chat.startStream')) {
          // The sender may die while its post is held: then Slack never sees it. Node 20 marks the
          // socket destroyed; later versions may only report the peer's end, so watch for both.
          let gone = false;
          const leave = () => void (gone = true);
          res.once('close', leave);
          req.socket.once('end', leave);
          held++;
          for (const wake of heldWaiters) wake();
          // Unref'd: a held request never keeps a finished process alive.
          await new Promise<void>((r) => {
            if (holdMs === Number.POSITIVE_INFINITY) releases.add(r);
            else setTimeout(r, holdMs).unref();
          });
          held--;
          res.off('close', leave);
          req.socket.off('end', leave);
          if (gone || req.socket.destroyed) return void req.socket.destroy();
        }
        const at = now();
        const unknown = unknownArgs(method, params);
        const from = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const extra = { ...(unknown.length ? { unknown } : {}), ...(from ? { from } : {}) };
        let answer: ScriptedAnswer | undefined = scripts.get(method)?.shift() ?? outages.get(method);
        if (answer?.reset === 'before') {
          calls.push({ method, params, at, status: 0, refused: false, ...extra });
          return void req.socket.destroy();
        }
        if (answer?.reset === 'after') {
          // Slack acted on it; only the answer is lost on the way back.
          const check = checked(method, params);
          const acted =
            check.answer?.body ?? streamAnswer(method, params, at)?.body ?? defaultAnswer(method, params, () => nextTs(now()), threadReplies(), history);
          calls.push({ method, params, at, status: 200, refused: false, answer: acted, ...extra, ...(check.truncated ? { truncated: true } : {}) });
          return void req.socket.destroy();
        }
        const window = windows.get(method);
        if (!answer && window) {
          // Slack limits posting per channel (about one a second); other limits are per method.
          const scope = window.perChannel ? (params.channel ?? '') : '';
          const left = (window.last.get(scope) ?? -Infinity) + window.intervalMs - at;
          if (left > 0) {
            // Slack sends whole seconds; fractions let the drill compress time.
            const retryAfter = window.whole ? String(Math.max(1, Math.ceil(left / 1000))) : (left / 1000).toFixed(3);
            const shape = window.shape === 'both' ? (window.refusals++ % 2 === 0 ? '429' : '200') : window.shape;
            answer =
              shape === '429'
                ? { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': retryAfter } }
                : { status: 200, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': retryAfter } };
          } else {
            window.last.set(scope, at);
          }
        }
        let truncated = false;
        // "limit ... maximum of 15 objects" for those apps: the page is cut, as Slack cuts it (the call is not refused).
        if (objectCap !== undefined && HISTORY_METHODS.has(method)) params.limit = String(Math.min(Number(params.limit || objectCap), objectCap));
        if (!answer) {
          const check = checked(method, params);
          answer = check.answer;
          truncated = check.truncated === true;
        }
        answer ??= streamAnswer(method, params, at);
        answer ??= assistantAnswer(method, params, at);
        answer ??= { status: 200, body: defaultAnswer(method, params, () => nextTs(now()), threadReplies(), history) };
        // A message this app puts in a thread takes the thinking status away (setStatus: "if no message has been sent").
        if ((method === 'chat.postMessage' || method === 'chat.startStream') && (answer.body as { ok?: unknown } | undefined)?.ok === true) {
          statuses.delete(threadKey(params.channel, params.thread_ts));
        }
        const body = answer.body as { ok?: unknown; error?: unknown } | undefined;
        // A stream is the last writer's: a copy that took a turn over completes the message its owner began.
        const written = method.endsWith('Stream') && body?.ok === true ? streams.get(String((body as { ts?: unknown }).ts ?? '')) : undefined;
        if (written && from) written.from = from;
        calls.push({
          method,
          params,
          at,
          status: answer.status,
          refused: answer.status === 429 || body?.error === 'ratelimited',
          answer: answer.body,
          ...extra,
          ...(truncated ? { truncated } : {}),
        });
        const send = (a: ScriptedAnswer) => {
          res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
          res.end(a.body === undefined ? '' : JSON.stringify(a.body));
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs, answer);
        else send(answer);
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const api: FakeWebApi = {
    url: `http://127.0.0.1:${port}/api/`,
    calls,
    script: (method, ...answers) => {
      scripts.set(method, [...(scripts.get(method) ?? []), ...answers]);
    },
    nonMarketplace: (on) => {
      objectCap = on ? NON_MARKETPLACE_OBJECTS : undefined;
      for (const method of HISTORY_METHODS) {
        if (on) windows.set(method, { intervalMs: 60_000, shape: '429', last: new Map(), refusals: 0, whole: true, perChannel: false });
        else windows.delete(method);
      }
    },
    enforceInterval: (method, intervalMs, shape = '429', retryAfter = 'fraction', per = 'method') => {
      if (intervalMs <= 0) windows.delete(method);
      else windows.set(method, { intervalMs, shape, last: new Map(), refusals: 0, whole: retryAfter === 'whole', perChannel: per === 'channel' });
    },
    holdPosts: (ms) => {
      holdMs = ms;
    },
    releasePosts: () => {
      holdMs = 0;
      for (const release of releases) release();
      releases.clear();
    },
    get held() {
      return held;
    },
    postHeld: (timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        if (held > 0) return resolve();
        const timer = setTimeout(() => {
          heldWaiters.delete(wake);
          reject(new Error(`no post was held within ${timeoutMs} ms`));
        }, timeoutMs);
        const wake = () => {
          clearTimeout(timer);
          heldWaiters.delete(wake);
          resolve();
        };
        heldWaiters.add(wake);
      }),
    addMessage: (channel, message) => {
      seenTs(message.ts);
      const c: HeldConversation = history.get(channel) ?? { im: message.im === true, messages: [], threads: new Map() };
      const thread = message.thread_ts !== undefined && message.thread_ts !== message.ts ? message.thread_ts : undefined;
      const held: Held = {
        ts: message.ts,
        ...(message.user ? { user: message.user } : {}),
        ...(message.text !== undefined ? { text: message.text } : {}),
        ...(thread ? { thread_ts: thread } : {}),
      };
      if (!thread) {
        c.messages.push(held);
        delete c.newestFirst;
      } else if (c.threads.has(thread)) c.threads.get(thread)!.push(held);
      else c.threads.set(thread, [held]);
      history.set(channel, c);
    },
    fail: (method, answer) => {
      if (answer) outages.set(method, answer);
      else outages.delete(method);
    },
    pressStop,
    pressStopWhen: (test, afterMs = 0) => {
      stopWhen = test ? { test, afterMs } : undefined;
    },
    addOtherAppReply: (channel, threadTs, text = 'Another app answers too.') => {
      const ts = nextTs(now());
      foreign.set(ts, { channel, thread_ts: threadTs, ts, text, by: OTHER_APP });
      return ts;
    },
    refuseStreamsIn: new Set(),
    statusOf: (channel, threadTs) => {
      const key = threadKey(channel, threadTs);
      const st = statuses.get(key);
      if (!st) return undefined;
      if (now() - st.setAt >= STATUS_TIMEOUT_MS) {
        statuses.delete(key);
        return undefined;
      }
      return st;
    },
    promptsOf: (channel, threadTs) => prompts.get(threadKey(channel, threadTs)),
    titleOf: (channel, threadTs) => titles.get(threadKey(channel, threadTs)),
    // A streamed message counts as a reply once it is final (stopped, by the app or by the person, or updated);
    // one left open shows in `streams`.
    posts: () =>
      [
        ...calls.filter(landed).map(current),
        ...[...streams]
          .filter(([, st]) => st.state === 'stopped' || st.state === 'updated' || st.state === 'stopped_by_user')
          .map(([ts, st]) => asPost(ts, st)),
      ].sort((a, b) => a.at - b.at),
    streams,
    tasksOf: (ts) => {
      const st = streams.get(ts);
      if (st) return st.tasks;
      const post = calls.find((c) => landed(c) && (c.answer as { ts?: string } | undefined)?.ts === ts);
      if (!post) return undefined;
      const read = readBlocks(current(post).params.blocks);
      return read === 'invalid' ? new Map() : read.tasks;
    },
    streamLifeMs: 300_000,
    responseUrl: (id, validMs) => {
      hookUrls.set(id, { until: now() + validMs, uses: 0 });
      return `http://127.0.0.1:${port}/hooks/${encodeURIComponent(id)}`;
    },
    hooks,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}
