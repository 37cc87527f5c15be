/**
 * ctx.ask's two ends on a copy (lib/ask): the resumed turn (its envelope runs through the turn's handle again),
 * and the click on a question's button, on whichever copy Slack reached, or kept by the edge's inbox.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../lib/log/index.js';
import type { Records } from '../../lib/store/index.js';
import type { AutohubContext } from '../turn-context.js';
import { answerQuestion, ASK_ACTION_PREFIX, parseAction, RESUME_EVENT_TYPE, resumeOf } from '../../lib/ask/index.js';
import type { EnvelopeFields, MessageEvent } from '../../lib/turn/index.js';
import type { TakeTurn } from '../../lib/bot/index.js';

type Args = { event: unknown; body: unknown; context: AutohubContext & { botUserId?: string; botId?: string; botToken?: string } };

export function registerAsk(
  app: App<AutohubContext>,
  o: {
    turn: TakeTurn;
    log: Logger;
    store: Pick<Records, 'read'>;
    client: WebClient;
    inject: (envelope: Record<string, unknown>) => Promise<string>;
    /** A question settled by a click here: the deadline watch forgets it. */
    answered?: (qid: string) => void;
  },
): void {
  app.event(RESUME_EVENT_TYPE, async ({ event, body, context }: Args) => {
    const handle = context.autohubTurn;
    const resume = resumeOf(body as { autohub_resume?: unknown });
    if (!handle || !resume) {
      o.log.error('turn.no_handle', { detail: 'a resumed turn reached a listener outside the turn runner' });
      return;
    }
    // The turn as it began: its own event type (and so its thread, its request).
    await handle.answer({ event: { ...(event as MessageEvent), type: resume.type }, body: body as EnvelopeFields, context }, o.turn);
  });

  app.action({ action_id: new RegExp(`^${ASK_ACTION_PREFIX}:`) }, async ({ ack, body, action }) => {
    await ack();
    const parsed = parseAction((action as { action_id?: unknown }).action_id);
    const payload = body as unknown as { user?: { id?: string }; channel?: { id?: string }; container?: { channel_id?: string; message_ts?: string } };
    const user = payload.user?.id;
    const channel = payload.channel?.id ?? payload.container?.channel_id;
    if (!parsed || !user || !channel) return;
    const tell = (text: string) =>
      o.client.chat.postEphemeral({ channel, user, text }).then(
        () => undefined,
        (error: unknown) => o.log.warn('ask.tell_failed', { question: parsed.qid, error }),
      );
    const messageTs = payload.container?.message_ts;
    const outcome = await answerQuestion({
      qid: parsed.qid,
      index: parsed.index,
      user,
      store: o.store,
      client: o.client,
      inject: o.inject,
      log: o.log,
      ...(messageTs ? { message: { channel, ts: messageTs } } : {}),
    });
    if (outcome === 'resumed' || outcome === 'answered_already' || outcome === 'gone') o.answered?.(parsed.qid);
    if (outcome === 'not_yours') await tell('This question is not yours to answer.');
    else if (outcome === 'answered_already' || outcome === 'gone') await tell('This question has been answered already.');
    else if (outcome === 'unsure') await tell('I could not take your answer just now: please click again in a moment.');
  });
}
