/**
 * One turn's share of Slack's AI-app surface, for the handle: the thinking
 * status while it runs (lib/turn/status.ts), the assistant thread's context
 * on its request and the thread's title after its first answer
 * (lib/turn/assistant-threads.ts). Nothing here fails a turn: a refused
 * status, an unreachable store or a title Slack will not take is logged and
 * passed by.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log/index.js';
import { clampLoadingMessages, defaultTitle } from './ai-exports.js';
import type { AssistantThreads } from './assistant-threads.js';
import { realTimers, StatusBook, ThinkingStatus, type StatusTimers } from './status.js';
import { DEFAULT_STATUS, type AiAppExports, type TurnRequest } from './types.js';

/** What a copy gives every turn's handle: the bot's exports, one status book, the timers, the assistant threads. */
export interface TurnAi {
  bot: Pick<AiAppExports, 'status' | 'loadingMessages' | 'title'>;
  book: StatusBook;
  timers?: StatusTimers | undefined;
  threads?: AssistantThreads | undefined;
}

export class AiTurn {
  #status: ThinkingStatus | undefined;
  #answer = '';
  #request: TurnRequest | undefined;
  /** The turn is in an assistant thread (its context kept): it is titled after its first answer. The agent experience has no threads to title. */
  #assistantThread = false;
  readonly #ai: TurnAi;

  constructor(
    ai: TurnAi | undefined,
    private readonly o: { client: WebClient; plain: WebClient; log: Logger },
  ) {
    // A handle built without one (a test's, a tool's): the default status and a book of its own (no state shared across copies).
    this.#ai = ai ?? { bot: {}, book: new StatusBook() };
  }

  /**
   * Before the turn: the context on the request (a DM thread the store knows as an assistant thread; or, a
   * DM outside a thread, as the Agent messaging experience writes them, what the person was last seen
   * looking at), then the status shown. Which experience the app has is read from what the store holds, no setting.
   */
  async begin(request: TurnRequest, target: { channel: string; threadTs: string }, threaded: boolean): Promise<void> {
    this.#request = request;
    const { threads } = this.#ai;
    if (threads && request.via === 'dm') {
      const thread = threaded ? await threads.context(target.channel, target.threadTs) : undefined;
      this.#assistantThread = thread !== undefined;
      const context = thread ?? (request.user ? await threads.agentContext(request.user) : undefined);
      if (context) request.context = context;
    }
    const status = new ThinkingStatus({
      client: this.o.client,
      channel: target.channel,
      threadTs: target.threadTs,
      status: this.#ai.bot.status ?? DEFAULT_STATUS,
      loadingMessages: await this.#loadingMessages(request),
      book: this.#ai.book,
      timers: this.#ai.timers ?? realTimers,
      log: this.o.log,
      eventId: request.eventId,
    });
    this.#status = status;
    status.start();
  }

  async #loadingMessages(request: TurnRequest): Promise<string[]> {
    const given = this.#ai.bot.loadingMessages;
    if (given === undefined) return [];
    if (typeof given !== 'function') return [...given];
    try {
      return clampLoadingMessages(await given(request));
    } catch (error) {
      this.o.log.warn('turn.loading_messages_failed', { eventId: request.eventId, error });
      return [];
    }
  }

  /** The reply's text as it is written: the status stops at its first piece (the message it starts clears it), and the answer is kept for the title. */
  watch<T>(text: AsyncIterable<T>): AsyncIterable<T> {
    const self = this;
    return (async function* () {
      for await (const piece of text) {
        self.#status?.stop();
        if (typeof piece === 'string') self.#answer += piece;
        else if (typeof (piece as { text?: unknown }).text === 'string') self.#answer += (piece as { text: string }).text;
        yield piece;
      }
    })();
  }

  /** A whole text reply is about to be written. */
  writing(text: string): void {
    this.#status?.stop();
    this.#answer += text;
  }

  /** The reply is in the thread: an assistant thread gets its title after its first answer (before the turn is finished, under its lease). */
  async answered(ts: string | undefined): Promise<void> {
    this.#status?.stop();
    const request = this.#request;
    const { threads } = this.#ai;
    if (!request || !this.#assistantThread || !threads || !ts) return;
    const { channel, threadTs, eventId } = request;
    try {
      if (!(await threads.firstTitle(channel, threadTs, eventId))) return;
      const given = this.#ai.bot.title;
      const title = (given ? await given(request, this.#answer) : defaultTitle(request.text)).trim();
      if (title !== '') await this.o.client.assistant.threads.setTitle({ channel_id: channel, thread_ts: threadTs, title });
      threads.titled(channel, threadTs);
    } catch (error) {
      this.o.log.warn('turn.title_failed', { eventId, error });
    }
  }

  /** The run ended with nothing in the thread (no reply, a failure): the status is taken away; the retry shows it again. */
  nothingPosted(): void {
    this.#status?.clear(this.o.plain);
  }

  /** The run ended (answered, stood down, failed): no more refreshes. */
  end(): void {
    this.#status?.stop();
  }
}
