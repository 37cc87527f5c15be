/**
 * Slack's AI-app events, both experiences, decided by which events arrive (no setting):
 *
 * The Agent messaging experience (the manifest's `agent_view`, Slack's default from now on;
 * https://docs.slack.dev/ai/migrating-to-agent-messaging): a DM opened (`app_home_opened` with
 * `tab: "messages"`, which "replaces the assistant_thread_started event"): its suggested prompts set
 * without a `thread_ts` ("Including it in a call for an agent app will cause the call to silently
 * fail", assistant.threads.setSuggestedPrompts), once across the copies; and what the person is
 * looking at (`app_context_changed`, and the opening's own `context`), kept for their next turns.
 *
 * The Assistant messaging experience (`assistant_view`, to be deprecated): an assistant thread opening (`assistant_thread_started`:
 * its context kept, its suggested prompts set once across the copies), the
 * person moving around Slack with it open (`assistant_thread_context_changed`:
 * the context kept for the thread's next turns), and a click on feedback
 * buttons under an answer (`block_actions`: the bot's `onFeedback`, once: the
 * click's trigger_id is claimed like a command's, and, after the ack, marked
 * heard, since a claim fails open when the store is slow). A message in an
 * assistant thread is a DM, answered by app/listeners/conversation.ts.
 *
 * A context is kept newest by its event's own time (`event_ts`): two changes
 * handled out of order (on two copies, or a slow store write) keep the later.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../lib/log/index.js';
import { turnOf, type AutohubContext } from '../turn-context.js';
import { agentContextOf, clampPrompts, contextOf, feedbackOf, hearsClick, orderOf, type AssistantThreads } from '../../lib/turn/index.js';
import type { AiAppExports, AssistantThread } from '../../lib/bot/index.js';

interface AssistantThreadEvent {
  assistant_thread?: { user_id?: string; channel_id?: string; thread_ts?: string; context?: Record<string, unknown> };
  event_ts?: string;
}

/** The envelope's parts the listeners read: the event id, and its time (a fallback for the event's own). */
function envelopeOf(body: unknown): { eventId: string; eventTime: unknown } {
  const b = body as { event_id?: unknown; event_time?: unknown };
  return { eventId: String(b.event_id ?? ''), eventTime: b.event_time };
}

/** The team a click came from: the payload's `team`, else the person's. */
function clickTeam(body: Record<string, unknown>): string | undefined {
  const team = (body.team as { id?: unknown } | undefined)?.id ?? (body.user as { team_id?: unknown } | undefined)?.team_id;
  return typeof team === 'string' && team !== '' ? team : undefined;
}

/** The thread an assistant event is about; undefined when Slack's event lacks its channel or thread. */
function threadOf(event: AssistantThreadEvent): (AssistantThread & { threadTs: string }) | undefined {
  const t = event.assistant_thread;
  if (!t?.channel_id || !t.thread_ts) return undefined;
  return { channel: t.channel_id, threadTs: t.thread_ts, user: t.user_id, context: contextOf(t) };
}

/** `app_home_opened` and `app_context_changed` as `@slack/types` 3.2 types them (AppHomeOpenedEvent, AppContextChangedEvent), loosely read. */
interface AgentEvent {
  type?: string;
  user?: string;
  channel?: string;
  tab?: string;
  context?: { entities?: unknown };
  event_ts?: string;
}

/** The person an agent event is about: the event's `user`, else the envelope's one authorization that is no bot (Slack's own example has only that). */
function personOf(event: AgentEvent, body: unknown): string | undefined {
  if (typeof event.user === 'string' && event.user !== '') return event.user;
  const auths = (body as { authorizations?: Array<{ user_id?: unknown; is_bot?: unknown }> }).authorizations;
  const person = Array.isArray(auths) ? auths.find((a) => a?.is_bot === false && typeof a.user_id === 'string') : undefined;
  return person ? String(person.user_id) : undefined;
}

export function registerAssistant(
  app: App,
  o: {
    bot: Pick<AiAppExports, 'prompts' | 'promptsTitle' | 'greeting' | 'onFeedback'>;
    threads: AssistantThreads;
    client: WebClient;
    log: Logger;
  },
): void {
  const { bot, threads, log } = o;

  /**
   * A DM opened (an assistant thread, or the agent view's DM): the bot's greeting, then its prompts under
   * its heading (set without a thread, the agent view's prompts go to "the latest message in the channel":
   * the greeting). `greet` and `prompt` say whether this delivery is the one that does each, across copies.
   * The bot's own function failing skips what it was for; nothing is retried for it.
   */
  async function opened(dm: AssistantThread, eventId: string, client: WebClient, once: { greet: () => Promise<boolean>; prompt: () => Promise<boolean> }) {
    const experience = dm.threadTs === undefined ? 'agent' : 'assistant';
    if (bot.greeting !== undefined && (await once.greet())) {
      try {
        const text = typeof bot.greeting === 'function' ? await bot.greeting(dm) : bot.greeting;
        if (typeof text === 'string' && text.trim() !== '') {
          await client.chat.postMessage({ channel: dm.channel, text, ...(dm.threadTs ? { thread_ts: dm.threadTs } : {}) });
          log.info('assistant.greeted', { eventId, experience });
        }
      } catch (error) {
        log.warn('assistant.greeting_failed', { eventId, error });
      }
    }
    if (bot.prompts === undefined) return;
    if (!(await once.prompt())) return void log.info('assistant.prompts_set_already', { eventId });
    let prompts: ReturnType<typeof clampPrompts>;
    try {
      prompts = clampPrompts(typeof bot.prompts === 'function' ? await bot.prompts(dm) : bot.prompts);
    } catch (error) {
      return void log.warn('assistant.prompts_failed', { eventId, error });
    }
    if (prompts.length === 0) return;
    // No thread_ts in the agent view: web-api 8.2 types it as required (the assistant view's), Slack's page as optional and fatal there.
    await client.assistant.threads.setSuggestedPrompts({
      channel_id: dm.channel,
      prompts,
      ...(dm.threadTs ? { thread_ts: dm.threadTs } : {}),
      ...(bot.promptsTitle ? { title: bot.promptsTitle } : {}),
    } as never);
    log.info('assistant.prompts_set', { eventId, count: prompts.length, experience });
  }

  /** The delivery's client, fenced by the event's lease: a copy that lost it stands down before a write leaves. */
  const clientOf = (context: unknown) => turnOf(context)?.client ?? o.client;

  app.event('assistant_thread_started', async ({ event, body, context }) => {
    const thread = threadOf(event as AssistantThreadEvent);
    const { eventId, eventTime } = envelopeOf(body);
    if (!thread) return void log.warn('assistant.thread_unreadable', { eventId });
    // A change handled before the start (out of order) is newer: the start's context does not overwrite it.
    await threads.keep(thread.channel, thread.threadTs, thread.context, orderOf((event as AssistantThreadEvent).event_ts, eventTime));
    if (bot.prompts === undefined && bot.greeting === undefined) return;
    // Two deliveries of one thread's start (two event ids, two copies) greet and set its prompts once: the first take wins both.
    const first = threads.firstStart(thread.channel, thread.threadTs, eventId);
    await opened(thread, eventId, clientOf(context), { greet: () => first, prompt: () => first });
  });

  // The Agent messaging experience: a DM with the app opened. The App Home tab (tab "home") is app/listeners/home.ts's.
  app.event('app_home_opened', async ({ event, body, context }) => {
    const opening = event as AgentEvent;
    if (opening.tab !== 'messages' || !opening.channel) return;
    const channel = opening.channel;
    const { eventId, eventTime } = envelopeOf(body);
    const user = personOf(opening, body);
    const seen = opening.context ? agentContextOf(opening.context) : { channel: undefined, team: undefined, enterprise: undefined };
    if (user && opening.context) await threads.keepAgent(user, seen, orderOf(opening.event_ts, eventTime));
    if (bot.prompts === undefined && bot.greeting === undefined) return;
    const dm: AssistantThread = { channel, threadTs: undefined, user, context: seen };
    // Prompts once per opening (two deliveries, two copies); the greeting once per DM (a DM is opened often).
    await opened(dm, eventId, clientOf(context), {
      greet: () => threads.firstGreeting(channel, eventId),
      prompt: () => threads.firstOpen(channel, opening.event_ts ?? eventId, eventId),
    });
  });

  app.event('app_context_changed', async ({ event, body }) => {
    const changed = event as AgentEvent;
    const { eventId, eventTime } = envelopeOf(body);
    const user = personOf(changed, body);
    if (!user) return void log.warn('assistant.context_unreadable', { eventId, detail: 'no user in the event or its authorizations' });
    const kept = await threads.keepAgent(user, agentContextOf(changed.context), orderOf(changed.event_ts, eventTime));
    if (kept === false) return void log.info('assistant.context_older', { eventId, detail: "a later change of this person's context is kept" });
    log.info('assistant.context_kept', { eventId, experience: 'agent', ...(kept === undefined ? { stored: false } : {}) });
  });

  app.event('assistant_thread_context_changed', async ({ event, body }) => {
    const thread = threadOf(event as AssistantThreadEvent);
    const { eventId, eventTime } = envelopeOf(body);
    if (!thread) return void log.warn('assistant.thread_unreadable', { eventId });
    const kept = await threads.keep(thread.channel, thread.threadTs, thread.context, orderOf((event as AssistantThreadEvent).event_ts, eventTime));
    if (kept === false) return void log.info('assistant.context_older', { eventId, detail: 'a later change of this thread is kept' });
    log.info('assistant.context_kept', { eventId, ...(kept === undefined ? { stored: false } : {}) });
  });

  // Every block_actions payload; only feedback buttons are ours. The runner acked it already, right after
  // its claim (interactivity is acked at once): nothing below delays the ack.
  app.action({ type: 'block_actions' }, async ({ ack, body, context }) => {
    await ack();
    const payload = body as unknown as Record<string, unknown>;
    const feedback = feedbackOf(payload);
    if (!feedback) return;
    if (!bot.onFeedback) return void log.info('feedback.unheard', { eventId: feedback.eventId, detail: 'the bot exports no onFeedback' });
    const trigger = typeof payload.trigger_id === 'string' ? payload.trigger_id : '';
    // The claim failed open on one copy and held on the other (a store slow under load): both are here. The mark
    // decides; when the store does not answer it either, the claim does (hearsClick).
    const verdict = trigger ? await threads.firstClick(clickTeam(payload), trigger) : 'unsure';
    const claim = (context as AutohubContext).autohubClaim ?? 'fail-open';
    const hears = hearsClick(verdict, claim);
    if (verdict === 'unsure') {
      const detail = hears ? "this copy's claim held: heard here" : 'its claim failed open: left to the copy whose claim held';
      log.warn('feedback.unsure', { eventId: feedback.eventId, claim, heard: hears, detail: `the store did not answer the click's mark; ${detail}` });
    }
    if (!hears) {
      if (verdict === 'heard') log.info('feedback.heard_already', { eventId: feedback.eventId });
      return;
    }
    await bot.onFeedback(feedback, { client: o.client, log });
    log.info('feedback.heard', { eventId: feedback.eventId, positive: feedback.positive });
  });
}
