/**
 * The `assistant` scenario's traffic beside its mentions: split-view threads
 * opened (each `assistant_thread_started` delivered twice, under two event
 * ids, once through the edge and once straight to the cloud copy), the
 * person moving around Slack (`assistant_thread_context_changed`), messages in
 * those threads as the scenario's mentions, and a feedback click on answers,
 * handed to both copies. What it checks: each thread's prompts set once, each
 * thread titled once, each click heard once.
 */
import type { RecordedCall } from './sim/fake-web-api.js';
import { assistantThreadEnvelope, feedbackClickForm } from './sim/slack-events.js';
import { FEEDBACK_CHANNEL } from './assistant-bot.js';
import type { Harness } from './harness.js';
import { inShare } from './scenarios.js';
import type { SlackSim } from './slack-sim.js';

export interface AssistantTraffic {
  /** Split-view threads the mentions are spread over. */
  threads: number;
  /** The share of mentions sent right after the person moved to another channel. */
  contextChanges: number;
  /** The share of answered mentions whose answer gets a feedback click. */
  clicks: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export class AssistantThreadsDrill {
  readonly #threads: Array<{ channel: string; ts: string }> = [];
  #changes = 0;

  private constructor(
    private readonly h: Harness,
    private readonly slack: SlackSim,
    private readonly traffic: AssistantTraffic,
    private readonly tag: string,
  ) {}

  /** Open the threads, and wait until each has its prompts (its context is then in the store for the first message). */
  static async open(h: Harness, slack: SlackSim, traffic: AssistantTraffic, tag: string): Promise<AssistantThreadsDrill> {
    const drill = new AssistantThreadsDrill(h, slack, traffic, tag);
    const base = Math.floor(Date.now() / 1000) - 60;
    for (let k = 0; k < traffic.threads; k++) {
      const thread = { channel: `D0ASSIST${k}`, ts: `${base}.${String(k).padStart(6, '0')}` };
      drill.#threads.push(thread);
      h.api.addMessage(thread.channel, { ts: thread.ts, user: 'UAUTOHUB', text: 'How can I help?', im: true });
      const started = (id: string) =>
        JSON.stringify(assistantThreadEnvelope({ eventId: id, channel: thread.channel, threadTs: thread.ts, viewing: `C0VIEW${k}` }));
      const id = `Ev-${tag}-open-${k}`;
      void slack.deliver(`open:${thread.ts}`, id, started(id));
      void slack.deliver(`open:${thread.ts}`, `${id}-b`, started(`${id}-b`), `${h.cloudTunnel.url}/slack/events`);
    }
    const until = Date.now() + 15_000;
    while (drill.#threads.some((t) => !h.api.promptsOf(t.channel, t.ts)) && Date.now() < until) await sleep(50);
    return drill;
  }

  /** Where mention `i` is written: a message in one of the threads (a DM thread); sometimes after the person moved. */
  mention(i: number): { channel: string; threadTs: string } {
    const thread = this.#threads[i % this.#threads.length]!;
    if (inShare(i, this.traffic.contextChanges, 3)) {
      const id = `Ev-${this.tag}-move-${this.#changes++}`;
      const moved = assistantThreadEnvelope({
        eventId: id,
        type: 'assistant_thread_context_changed',
        channel: thread.channel,
        threadTs: thread.ts,
        viewing: `C0MOVED${this.#changes}`,
      });
      void this.slack.deliver(`move:${thread.ts}`, id, JSON.stringify(moved));
    }
    return { channel: thread.channel, threadTs: thread.ts };
  }

  /**
   * Click feedback on a share of the answers, each click handed to both copies
   * (the same trigger_id), then say what was not as it should be: prompts or
   * titles set other than once per thread, a click heard twice or never.
   */
  async finish(answers: readonly RecordedCall[]): Promise<string[]> {
    const { h, slack } = this;
    const unmet: string[] = [];
    const clicked: string[] = [];
    for (const [i, answer] of answers.entries()) {
      const ts = (answer.answer as { ts?: string } | undefined)?.ts;
      if (!ts || !inShare(i, this.traffic.clicks)) continue;
      clicked.push(ts);
      const form = feedbackClickForm({
        triggerId: `trigger-${this.tag}-${i}`,
        channel: answer.params.channel ?? '',
        messageTs: ts,
        ...(answer.params.thread_ts ? { threadTs: answer.params.thread_ts } : {}),
        button: i % 2 === 0 ? 'positive' : 'negative',
        ...(answer.params.metadata ? { metadata: JSON.parse(answer.params.metadata) as Record<string, unknown> } : {}),
      });
      void slack.interact(`click:${ts}`, `click-${i}`, form, `${h.hubTunnel.url}/slack/events`);
      void slack.interact(`click:${ts}`, `click-${i}-b`, form, `${h.cloudTunnel.url}/slack/events`);
    }
    await slack.settled();
    const heard = () => h.api.posts().filter((p) => p.params.channel === FEEDBACK_CHANNEL && clicked.some((ts) => (p.params.text ?? '').includes(ts)));
    const until = Date.now() + 10_000;
    while (heard().length < clicked.length && Date.now() < until) await sleep(50);
    // Quiet a moment more: a click run twice would show its second line now.
    await sleep(500);
    const counts = new Map(clicked.map((ts) => [ts, heard().filter((p) => (p.params.text ?? '').split(' ')[1] === ts).length]));
    const twice = [...counts.values()].filter((n) => n > 1).length;
    const never = [...counts.values()].filter((n) => n === 0).length;
    if (twice) unmet.push(`${twice} of ${clicked.length} feedback clicks heard twice`);
    if (never) unmet.push(`${never} of ${clicked.length} feedback clicks never heard`);
    const prompts = this.#threads.map((t) => h.api.promptsOf(t.channel, t.ts)?.calls ?? 0);
    if (prompts.some((n) => n !== 1)) unmet.push(`suggested prompts set ${prompts.join(', ')} times in the ${prompts.length} threads (once each expected)`);
    const titled = this.#threads.map((t) => h.api.titleOf(t.channel, t.ts)?.calls ?? 0);
    if (titled.some((n) => n !== 1)) unmet.push(`titles set ${titled.join(', ')} times in the ${titled.length} threads (once each expected)`);
    return unmet;
  }

  /** Feedback clicks sent, prompts and titles set: for the progress line. */
  get threads(): number {
    return this.#threads.length;
  }
}
