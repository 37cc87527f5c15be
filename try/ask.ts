/**
 * ctx.ask in `npm run try`: a question the turn posts (its buttons) is shown
 * with its choices, and clicked as the person would, through the edge: the
 * choice `--answer` names, else the first. The turn, parked on it, then
 * resumes, and its answer prints as any answer does.
 */
import { clickForm } from '../drill/sim/ask-click.js';
import type { RecordedCall } from '../drill/sim/fake-web-api.js';
import type { Conversation, ReplyView, Said } from './conversation.js';

interface Shown {
  ts: string;
  buttons: Array<{ actionId: string; value: string; label: string }>;
}

/** A question's message (autohub's `autohub_ask` buttons), or undefined for any other message. */
export function questionOf(c: Pick<RecordedCall, 'params' | 'answer'>): Shown | undefined {
  if (!(c.params.blocks ?? '').includes('autohub_ask:')) return undefined;
  try {
    const blocks = JSON.parse(c.params.blocks!) as Array<{ elements?: Array<{ action_id?: string; value?: string; text?: { text?: string } }> }>;
    const elements = blocks.find((b) => b.elements?.[0]?.action_id?.startsWith('autohub_ask:'))?.elements ?? [];
    const buttons = elements.map((e) => ({ actionId: e.action_id ?? '', value: e.value ?? '', label: e.text?.text ?? '' }));
    const ts = (c.answer as { ts?: string } | undefined)?.ts;
    return ts && buttons.length > 0 ? { ts, buttons } : undefined;
  } catch {
    return undefined;
  }
}

/** The person, answering the questions of one message's turn: call `look` while its answer is awaited. */
export class TryAsker {
  readonly #clicked = new Set<string>();
  #n = 0;

  constructor(
    private readonly c: Pick<Conversation, 'h' | 'slack'>,
    private readonly o: { answer?: string | undefined; out: (s: string) => void; warn: (s: string) => void },
  ) {}

  /** A question newly shown in `view` (printed already, as its note): its buttons shown, and its choice clicked. */
  look(said: Said, view: Pick<ReplyView, 'parts'>): void {
    for (const call of this.c.h.api.posts()) {
      if (call.params.channel !== said.channel || call.params.thread_ts !== said.thread || call.at < said.sentAt) continue;
      const q = questionOf(call);
      if (!q || this.#clicked.has(q.ts) || !view.parts.some((p) => p.ts === q.ts)) continue;
      this.#clicked.add(q.ts);
      // The question itself printed as the turn's note, just before: here its buttons.
      this.o.out(`buttons: ${q.buttons.map((b) => `[${b.label}]`).join(' ')}\n`);
      const named = this.o.answer === undefined ? undefined : q.buttons.find((b) => b.label.toLowerCase() === this.o.answer!.toLowerCase());
      if (this.o.answer !== undefined && !named) {
        this.o.warn(`try: --answer ${JSON.stringify(this.o.answer)} is not one of ${q.buttons.map((b) => b.label).join(', ')}: clicking the first\n`);
      }
      const button = named ?? q.buttons[0]!;
      this.o.out(`you click: ${button.label}\n`);
      const id = `try-ask-${said.sentAt}-${++this.#n}`;
      const form = clickForm({
        triggerId: `trig-${id}`,
        user: 'U0PERSON',
        channel: said.channel,
        messageTs: q.ts,
        threadTs: said.thread,
        actionId: button.actionId,
        value: button.value,
      });
      void this.c.slack.interact(`click:${id}`, id, form);
    }
  }
}
