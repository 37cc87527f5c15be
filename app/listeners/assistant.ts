/**
 * Slack's AI-app events: an assistant thread opening (`assistant_thread_started`:
 * its context kept, its suggested prompts set once across the copies), the
 * person moving around Slack with it open (`assistant_thread_context_changed`:
 * the context kept for the thread's next turns), and a click on feedback
 * buttons under an answer (`block_actions`: the bot's `onFeedback`, once: the
 * click's trigger_id is claimed like a command's). A message in an assistant
 * thread is a DM, answered by app/listeners/conversation.ts.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../lib/log/index.js';
import type { TurnContext } from '../../lib/runner/index.js';
import { clampPrompts, contextOf, feedbackOf, type AiAppExports, type AssistantThread, type AssistantThreads } from '../../lib/turn/index.js';

interface AssistantThreadEvent {
  assistant_thread?: { user_id?: string; channel_id?: string; thread_ts?: string; context?: Record<string, unknown> };
  event_ts?: string;
}

/** The thread an assistant event is about; undefined when Slack's event lacks its channel or thread. */
function threadOf(event: AssistantThreadEvent): AssistantThread | undefined {
  const t = event.assistant_thread;
  if (!t?.channel_id || !t.thread_ts) return undefined;
  return { channel: t.channel_id, threadTs: t.thread_ts, user: t.user_id, context: contextOf(t) };
}

export function registerAssistant(
  app: App,
  o: { bot: Pick<AiAppExports, 'prompts' | 'onFeedback'>; threads: AssistantThreads; client: WebClient; log: Logger },
): void {
  const { bot, threads, log } = o;

  app.event('assistant_thread_started', async ({ event, body, context }) => {
    const thread = threadOf(event as AssistantThreadEvent);
    const eventId = String((body as { event_id?: unknown }).event_id ?? '');
    if (!thread) return void log.warn('assistant.thread_unreadable', { eventId });
    await threads.keep(thread.channel, thread.threadTs, thread.context);
    if (bot.prompts === undefined) return;
    // Two deliveries of one thread's start (two event ids, two copies) set its prompts once: the first take wins.
    if (!(await threads.firstStart(thread.channel, thread.threadTs, eventId))) {
      return void log.info('assistant.prompts_set_already', { eventId });
    }
    let prompts: ReturnType<typeof clampPrompts>;
    try {
      prompts = clampPrompts(typeof bot.prompts === 'function' ? await bot.prompts(thread) : bot.prompts);
    } catch (error) {
      // The bot's own function failed: the thread opens without prompts, and nothing is retried for it.
      return void log.warn('assistant.prompts_failed', { eventId, error });
    }
    if (prompts.length === 0) return;
    // Fenced by the event's lease: a copy that lost it stands down before this leaves.
    const client = (context as Partial<TurnContext>).autohubTurn?.client ?? o.client;
    await client.assistant.threads.setSuggestedPrompts({ channel_id: thread.channel, thread_ts: thread.threadTs, prompts: prompts as never });
    log.info('assistant.prompts_set', { eventId, count: prompts.length });
  });

  app.event('assistant_thread_context_changed', async ({ event, body }) => {
    const thread = threadOf(event as AssistantThreadEvent);
    const eventId = String((body as { event_id?: unknown }).event_id ?? '');
    if (!thread) return void log.warn('assistant.thread_unreadable', { eventId });
    await threads.keep(thread.channel, thread.threadTs, thread.context);
    log.info('assistant.context_kept', { eventId });
  });

  // Every block_actions payload; only feedback buttons are ours. The runner acked it already (interactivity is acked at once).
  app.action({ type: 'block_actions' }, async ({ ack, body }) => {
    await ack();
    const feedback = feedbackOf(body as unknown as Record<string, unknown>);
    if (!feedback) return;
    if (!bot.onFeedback) return void log.info('feedback.unheard', { eventId: feedback.eventId, detail: 'the bot exports no onFeedback' });
    await bot.onFeedback(feedback, { client: o.client, log });
    log.info('feedback.heard', { eventId: feedback.eventId, positive: feedback.positive });
  });
}
