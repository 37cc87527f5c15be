/**
 * A loopback stand-in for Slack's Web API that records every call and can be
 * told to refuse: scripted answers per method, or a real rate window (one
 * call per `intervalMs` per method) that answers 429 with Retry-After.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
}

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
   * Hold each chat.postMessage and chat.startStream (a reply's first write) this long before it lands; one whose
   * connection drops meanwhile (its sender died) never lands. 0 to stop.
   */
  holdPosts(ms: number): void;
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
  /** Streamed messages by ts, as Slack holds them. */
  streams: Map<string, FakeStream>;
  /** How long Slack keeps a stream open before it refuses appends. @default 300000 */
  streamLifeMs: number;
  /**
   * A message Slack holds in `channel` (the simulated Slack records each
   * mention it sends): served by conversations.history and users.conversations.
   * With a `thread_ts` other than its own `ts` it is a reply in that thread:
   * served by conversations.replies, and counted on its parent in the history.
   */
  addMessage(channel: string, message: { ts: string; user?: string; text?: string; im?: boolean; thread_ts?: string }): void;
  /**
   * Until called again with null, answer every call of `method` with `answer`
   * (a Web API outage). Scripted answers still come first.
   */
  fail(method: string, answer: ScriptedAnswer | null): void;
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
  state: 'streaming' | 'stopped' | 'expired' | 'updated';
  metadata?: string;
  startedAt: number;
  appends: number;
}

interface Held {
  ts: string;
  user?: string;
  text?: string;
  thread_ts?: string;
}

/** A conversation as the fake holds it: top-level messages, and each thread's replies by its parent's ts. */
interface HeldConversation {
  im: boolean;
  messages: Held[];
  threads: Map<string, Held[]>;
  /** `messages` newest first, kept until one is added: a sweep reads a day of history, page by page. */
  newestFirst?: Held[];
}

const byTs = (a: { ts?: string }, b: { ts?: string }) => Number(a.ts) - Number(b.ts);

/** Slack's `oldest` / `latest` / `inclusive` on a message's ts (latest defaults to now, oldest to 0). */
function inRange(params: Record<string, string>): (m: { ts?: string }) => boolean {
  const inclusive = params.inclusive === 'true' || params.inclusive === '1';
  const oldest = Number(params.oldest ?? 0);
  const latest = params.latest ? Number(params.latest) : Infinity;
  return (m) => (inclusive ? Number(m.ts) >= oldest && Number(m.ts) <= latest : Number(m.ts) > oldest && Number(m.ts) < latest);
}

/** Slack's cursor paging over a list: `limit` per page, an opaque cursor to the next. */
function paged<T>(items: readonly T[], params: Record<string, string>, fallbackLimit: number): { page: T[]; next: string } {
  const limit = Math.max(1, Math.min(1000, Number(params.limit ?? fallbackLimit) || fallbackLimit));
  const start = params.cursor ? Number(Buffer.from(params.cursor, 'base64').toString('utf8').replace('next:', '')) || 0 : 0;
  const more = start + limit < items.length;
  return { page: items.slice(start, start + limit), next: more ? Buffer.from(`next:${start + limit}`).toString('base64') : '' };
}

function defaultAnswer(
  method: string,
  params: Record<string, string>,
  counter: number,
  calls: RecordedCall[],
  history: Map<string, HeldConversation> = new Map(),
): unknown {
  switch (method) {
    case 'users.conversations': {
      const { page, next } = paged([...history].map(([id, c]) => ({ id, is_im: c.im, is_channel: !c.im })), params, 100);
      return { ok: true, channels: page, response_metadata: { next_cursor: next } };
    }
    case 'conversations.history': {
      // https://docs.slack.dev/reference/methods/conversations.history: top-level messages only, newest first, in
      // [oldest, latest]; a thread's parent carries thread_ts, reply_count, reply_users(_count) and latest_reply.
      const channel = history.get(params.channel ?? '');
      if (!channel) return { ok: false, error: 'channel_not_found' };
      channel.newestFirst ??= [...channel.messages].sort((a, b) => byTs(b, a));
      const inWindow = channel.newestFirst.filter(inRange(params));
      const { page, next } = paged(inWindow, params, 100);
      // The bot's replies in each thread: one pass over the calls for the page (a pass per message made a drill
      // of thousands of mentions quadratic, and stalled its event loop).
      const onPage = new Set(page.map((m) => m.ts));
      const bots = new Map<string, string[]>();
      for (const c of calls) {
        const thread = c.params.thread_ts;
        if (thread !== undefined && onPage.has(thread) && c.params.channel === params.channel && landed(c)) {
          const ts = String((c.answer as { ts?: string } | undefined)?.ts ?? '0');
          if (bots.has(thread)) bots.get(thread)!.push(ts);
          else bots.set(thread, [ts]);
        }
      }
      const messages = page.map((m) => {
        const people = channel.threads.get(m.ts) ?? [];
        const botTs = bots.get(m.ts) ?? [];
        const count = people.length + botTs.length;
        if (count === 0) return { type: 'message', ...m };
        const users = [...new Set([...people.map((r) => r.user ?? ''), ...(botTs.length ? ['UAUTOHUB'] : [])])];
        const latest = [...people.map((r) => r.ts), ...botTs].sort((a, b) => Number(b) - Number(a))[0];
        return { type: 'message', ...m, thread_ts: m.ts, reply_count: count, reply_users_count: users.length, reply_users: users, latest_reply: latest };
      });
      return { ok: true, messages, has_more: next !== '', response_metadata: { next_cursor: next } };
    }
    case 'conversations.replies': {
      // https://docs.slack.dev/reference/methods/conversations.replies: the parent first, then its replies oldest
      // first in [oldest, latest], cursor-paged. Slack answers thread_not_found for a ts it does not hold; the fake
      // holds only the messages a test added, so a thread without a parent here is served from its replies alone.
      const channel = history.get(params.channel ?? '');
      const parent = channel?.messages.find((m) => m.ts === params.ts);
      const people = (channel?.threads.get(params.ts ?? '') ?? []).map((m) => ({ type: 'message', ...m, parent_user_id: parent?.user }));
      // The bot's replies as posted so far, with their metadata.
      const bots = calls
        .filter((c) => landed(c) && c.params.channel === params.channel && c.params.thread_ts === params.ts)
        .map((c) => ({
          type: 'message',
          ts: (c.answer as { ts?: string } | undefined)?.ts,
          // Every bot message the fake holds in a thread is autohub's.
          user: 'UAUTOHUB',
          bot_id: 'BAUTOHUB',
          text: c.params.text,
          thread_ts: c.params.thread_ts,
          ...(c.params.metadata ? { metadata: JSON.parse(c.params.metadata) as unknown } : {}),
        }));
      const replies = [...people, ...bots].filter(inRange(params)).sort(byTs);
      const thread = [...(parent ? [{ type: 'message', ...parent, thread_ts: parent.ts, reply_count: people.length + bots.length }] : []), ...replies];
      const { page, next } = paged(thread, params, 1000);
      return { ok: true, messages: page, has_more: next !== '', response_metadata: { next_cursor: next } };
    }
    case 'auth.test':
      return { ok: true, user_id: 'UAUTOHUB', bot_id: 'BAUTOHUB', team_id: 'T0AUTOHUB', team: 'autohub-test' };
    case 'chat.postMessage':
    case 'chat.postEphemeral':
      return {
        ok: true,
        channel: params.channel,
        ts: `${Math.floor(Date.now() / 1000)}.${String(counter).padStart(6, '0')}`,
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
  return (c.method === 'chat.postMessage' || c.method === STREAMED) && c.status === 200 && !c.refused && (c.answer as { ok?: unknown } | undefined)?.ok !== false;
}

export async function startFakeWebApi(options: { now?: () => number } = {}): Promise<FakeWebApi> {
  const now = options.now ?? Date.now;
  const scripts = new Map<string, ScriptedAnswer[]>();
  const windows = new Map<string, { intervalMs: number; shape: '429' | '200' | 'both'; last: Map<string, number>; refusals: number; whole: boolean; perChannel: boolean }>();
  const outages = new Map<string, ScriptedAnswer>();
  const history = new Map<string, HeldConversation>();
  const streams = new Map<string, FakeStream>();
  /** Slack's streaming methods: a stream per ts, appends refused after a stop or past the stream's life. */
  const streamAnswer = (method: string, params: Record<string, string>, at: number): ScriptedAnswer | undefined => {
    const refuse = (error: string): ScriptedAnswer => ({ status: 200, body: { ok: false, error } });
    // Text comes as `markdown_text`, or as `chunks` of type markdown_text (what web-api's chatStream helper sends).
    let markdown = params.markdown_text ?? '';
    if (params.chunks) {
      try {
        for (const c of JSON.parse(params.chunks) as Array<{ type?: string; text?: string }>) if (c.type === 'markdown_text') markdown += c.text ?? '';
      } catch {
        /* unreadable chunks add nothing */
      }
    }
    const live = (st: FakeStream | undefined) => {
      if (st && st.state === 'streaming' && at - st.startedAt > api.streamLifeMs) st.state = 'expired';
      return st;
    };
    switch (method) {
      case 'chat.startStream': {
        const ts = `${Math.floor(at / 1000)}.${String(++counter).padStart(6, '0')}`;
        streams.set(ts, { channel: params.channel ?? '', thread_ts: params.thread_ts, text: markdown, state: 'streaming', startedAt: at, appends: 0 });
        return { status: 200, body: { ok: true, channel: params.channel, ts } };
      }
      case 'chat.appendStream': {
        const st = live(streams.get(params.ts ?? ''));
        if (!st) return refuse('message_not_found');
        if (st.state !== 'streaming') return refuse('message_not_in_streaming_state');
        st.text += markdown;
        st.appends += 1;
        return { status: 200, body: { ok: true, channel: st.channel, ts: params.ts } };
      }
      case 'chat.stopStream': {
        const st = live(streams.get(params.ts ?? ''));
        if (!st) return refuse('message_not_found');
        if (st.state !== 'streaming') return refuse('message_not_in_streaming_state');
        st.text += markdown;
        st.state = 'stopped';
        if (params.metadata) st.metadata = params.metadata;
        return { status: 200, body: { ok: true, channel: st.channel, ts: params.ts } };
      }
      case 'chat.update': {
        const st = live(streams.get(params.ts ?? ''));
        if (!st) return undefined;
        if (st.state === 'streaming') return refuse('streaming_state_conflict');
        st.text = params.text ?? st.text;
        st.state = 'updated';
        if (params.metadata) st.metadata = params.metadata;
        return { status: 200, body: { ok: true, channel: st.channel, ts: params.ts } };
      }
      default:
        return undefined;
    }
  };
  /** A streamed message as an entry of posts(), shaped like the post it stands for. */
  const asPost = (ts: string, st: FakeStream): RecordedCall => ({
    method: STREAMED,
    params: { channel: st.channel, ...(st.thread_ts ? { thread_ts: st.thread_ts } : {}), text: st.text, ...(st.metadata ? { metadata: st.metadata } : {}) },
    at: st.startedAt,
    status: 200,
    refused: false,
    answer: { ok: true, ts },
  });
  const calls: RecordedCall[] = [];
  let counter = 0;
  let holdMs = 0;
  let held = 0;
  const heldWaiters = new Set<() => void>();

  const server: Server = createServer((req, res) => {
    const method = (req.url ?? '/').split('?')[0]!.split('/').filter(Boolean).pop() ?? '';
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
          await new Promise((r) => setTimeout(r, holdMs).unref());
          held--;
          res.off('close', leave);
          req.socket.off('end', leave);
          if (gone || req.socket.destroyed) return void req.socket.destroy();
        }
        const at = now();
        let answer: ScriptedAnswer | undefined = scripts.get(method)?.shift() ?? outages.get(method);
        if (answer?.reset === 'before') {
          calls.push({ method, params, at, status: 0, refused: false });
          return void req.socket.destroy();
        }
        if (answer?.reset === 'after') {
          // Slack acted on it; only the answer is lost on the way back.
          const acted = streamAnswer(method, params, at)?.body ?? defaultAnswer(method, params, ++counter, calls);
          calls.push({ method, params, at, status: 200, refused: false, answer: acted });
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
        answer ??= streamAnswer(method, params, at);
        answer ??= { status: 200, body: defaultAnswer(method, params, ++counter, [...calls, ...[...streams].map(([ts, st]) => asPost(ts, st))], history) };
        const body = answer.body as { ok?: unknown; error?: unknown } | undefined;
        calls.push({
          method,
          params,
          at,
          status: answer.status,
          refused: answer.status === 429 || body?.error === 'ratelimited',
          answer: answer.body,
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
    enforceInterval: (method, intervalMs, shape = '429', retryAfter = 'fraction', per = 'method') => {
      if (intervalMs <= 0) windows.delete(method);
      else windows.set(method, { intervalMs, shape, last: new Map(), refusals: 0, whole: retryAfter === 'whole', perChannel: per === 'channel' });
    },
    holdPosts: (ms) => {
      holdMs = ms;
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
      const c: HeldConversation = history.get(channel) ?? { im: message.im === true, messages: [], threads: new Map() };
      const reply = message.thread_ts !== undefined && message.thread_ts !== message.ts;
      const held: Held = {
        ts: message.ts,
        ...(message.user ? { user: message.user } : {}),
        ...(message.text !== undefined ? { text: message.text } : {}),
        ...(reply ? { thread_ts: message.thread_ts } : {}),
      };
      if (!reply) {
        c.messages.push(held);
        delete c.newestFirst;
      } else if (c.threads.has(message.thread_ts!)) c.threads.get(message.thread_ts!)!.push(held);
      else c.threads.set(message.thread_ts!, [held]);
      history.set(channel, c);
    },
    fail: (method, answer) => {
      if (answer) outages.set(method, answer);
      else outages.delete(method);
    },
    // A streamed message counts as a reply once it is final (stopped or updated); one left open shows in `streams`.
    posts: () =>
      [...calls.filter(landed), ...[...streams].filter(([, st]) => st.state === 'stopped' || st.state === 'updated').map(([ts, st]) => asPost(ts, st))].sort(
        (a, b) => a.at - b.at,
      ),
    streams,
    streamLifeMs: 300_000,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}
