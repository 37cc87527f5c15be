/**
 * The drill's bot for the `assistant` scenario (AUTOHUB_TURN on both
 * copies): the demo turn's answer with feedback buttons under it, suggested
 * prompts for each assistant thread, and an `onFeedback` that posts one line
 * per click to FEEDBACK_CHANNEL, so the drill can count how often a click was heard.
 */
import type { App } from '@slack/bolt';
import { demoTurn } from '../app/turn.js';
import { RetryableError } from '../lib/errors/index.js';
import type { AssistantThread, Feedback, FeedbackHelpers, TurnContext, TurnRequest } from '../lib/bot/index.js';
import { feedbackBlocks } from './sim/slack-events.js';

/** Where onFeedback says it heard a click: `feedback <messageTs> <value>`. */
export const FEEDBACK_CHANNEL = 'C0FEEDBACK';

const turn = demoTurn({ thinkMs: Number(process.env.AUTOHUB_DEMO_THINK_MS || 0), chunkMs: Number(process.env.AUTOHUB_DEMO_CHUNK_MS || 0) });

export async function takeTurn(request: TurnRequest, ctx: TurnContext) {
  return { text: await turn(request, ctx), blocks: feedbackBlocks() };
}

export const loadingMessages = ['Reading the thread...', 'Thinking it over...'];

export function prompts(thread: AssistantThread) {
  return [
    { title: 'Summarise', message: `Summarise ${thread.context.channel ?? 'this'}` },
    { title: 'Explain', message: 'Explain the last answer' },
  ];
}

/** Slash commands whose run failed here once (DRILL_FLAKY_COMMANDS): the next run of each, on either copy, goes on. */
const failedOnce = new Set<string>();

/**
 * With DRILL_FLAKY_COMMANDS=1 (the `inbox-commands` scenario), every other slash command fails its first run
 * on each copy with a passing error, as a listener whose model is overloaded would: it must be retried and
 * answered once, never dropped as run.
 */
export function register(app: App): void {
  if (process.env.DRILL_FLAKY_COMMANDS !== '1') return;
  app.use(async ({ body, next }) => {
    const command = body as { command?: unknown; text?: unknown; trigger_id?: unknown };
    const n = Number(String(command.text ?? '').replace(/^drill-/, ''));
    const trigger = String(command.trigger_id ?? '');
    if (typeof command.command === 'string' && n % 2 === 0 && !failedOnce.has(trigger)) {
      failedOnce.add(trigger);
      throw new RetryableError('drill: the command listener fails its first run');
    }
    await next();
  });
}

export async function onFeedback(feedback: Feedback, { client }: FeedbackHelpers): Promise<void> {
  await client.chat.postMessage({ channel: FEEDBACK_CHANNEL, text: `feedback ${feedback.messageTs ?? '?'} ${feedback.value}` });
}
