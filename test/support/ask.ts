/** A bot's question (ctx.ask) as the fake Slack holds it, and a person's click on one of its buttons. */
import { clickForm } from '../../drill/sim/ask-click.js';
import type { FakeWebApi, RecordedCall } from '../../drill/sim/fake-web-api.js';

export interface QuestionButton {
  action_id: string;
  value: string;
  text: { text: string };
}

/** The question posted in the thread `threadTs`, if it is there yet. */
export function questionIn(api: Pick<FakeWebApi, 'posts'>, threadTs: string): RecordedCall | undefined {
  return api.posts().find((c) => c.params.thread_ts === threadTs && (c.params.blocks ?? '').includes('autohub_ask:'));
}

/** A question's buttons, one per choice, in order. */
export function buttonsOf(question: RecordedCall): QuestionButton[] {
  return (JSON.parse(question.params.blocks!) as Array<{ elements?: QuestionButton[] }>)[1]!.elements!;
}

/** The question's message ts. */
export function questionTs(question: RecordedCall): string {
  return (question.answer as { ts: string }).ts;
}

/** A signed-ready block_actions body: `user` clicks the question's button `choice` (its index) in C0GENERAL. */
export function clickOn(question: RecordedCall, threadTs: string, o: { user: string; triggerId: string; choice?: number }): string {
  const button = buttonsOf(question)[o.choice ?? 0]!;
  return clickForm({
    triggerId: o.triggerId,
    user: o.user,
    channel: 'C0GENERAL',
    messageTs: questionTs(question),
    threadTs,
    actionId: button.action_id,
    value: button.value,
  });
}
