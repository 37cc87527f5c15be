/**
 * The `assistant` scenario's traffic beside its mentions, in both of Slack's AI
 * experiences: split-view threads opened (the Assistant one: each
 * `assistant_thread_started` delivered twice, under two event ids, once
 * through the edge and once straight to the cloud copy), and DMs opened (the
 * Agent messaging one, https://docs.slack.dev/ai/migrating-to-agent-messaging:
 * `app_home_opened` with `tab: "messages"`, delivered twice alike); the person
 * moving around Slack (`assistant_thread_context_changed`, or
 * `app_context_changed`); messages in those threads, and top-level messages in
 * those DMs (no assistant thread), as the scenario's mentions; and a feedback
 * click on answers, handed to both copies. What it checks: each thread's and
 * each opened DM's prompts set once, each thread titled once, each click heard
 * once.
 */
import type { RecordedCall } from './sim/fake-web-api.js';
import { agentEnvelope, assistantThreadEnvelope, feedbackClickForm } from './sim/slack-events.js';
import { FEEDBACK_CHANNEL } from './assistant-bot.js';
import type { Harness } from './harness.js';
import { inShare } from './scenarios.js';
import { SLACK_DEADLINE_MS, type Attempt, type SlackSim } from './slack-sim.js';

export interface AssistantTraffic {
  /** Split-view threads (the Assistant experience) the mentions are spread over. */
  threads: number;
  /** DMs opened in the Agent messaging experience the mentions are spread over too, as top-level messages. @default 0 */
  agentDms?: number;
  /** The share of mentions sent right after the person moved to another channel. */
  contextChanges: number;
  /** The share of answered mentions whose answer gets a feedback click. */
  clicks: number;
  /** Clicks a second (each handed to both copies). @default CLICK_RATE */
  clickRate?: number;
}

/**
 * Clicks a second, as the drill's mentions (20 a second): people click one at
 * a time. Before, every click went at once, 1,000 signed requests in one
 * instant at 1,000 mentions, and most acks were over Slack's 3 s while the
 * copies answered each within 400 ms of its arrival: the drill measured its
 * own burst, not the acks (docs/ai-apps.md).
 */
export const CLICK_RATE = 20;

/** How long no click may be heard again before the clicks are counted: twice a post's hold in the scenario (800 ms). */
const QUIET_MS = 2000;
/** How long no click is heard at all before the ones not heard are counted "never heard". */
const STALL_MS = 15_000;

/** A click's deliveries, by their `mention` in the sim's attempts. */
const CLICK_PREFIX = 'click:';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * One line about the clicks' deliveries: their ack times as Slack saw them,
 * and how each copy's claim answered (`fail-open`: the store did not answer
 * within the ack's budget; the click's heard mark then decides). Pure.
 */
export function clickFigures(attempts: readonly Attempt[], clicks: number): string {
  const ms = attempts
    .filter((a) => a.answeredAt !== undefined)
    .map((a) => a.answeredAt! - a.sentAt)
    .sort((a, b) => a - b);
  const at = (p: number) => (ms.length ? ms[Math.min(ms.length - 1, Math.floor((ms.length * p) / 100))]! : 0);
  const late = attempts.filter((a) => a.status === 'timeout' || (a.answeredAt !== undefined && a.answeredAt - a.sentAt > SLACK_DEADLINE_MS)).length;
  const claims = new Map<string, number>();
  for (const a of attempts) claims.set(a.claim ?? String(a.status), (claims.get(a.claim ?? String(a.status)) ?? 0) + 1);
  const byClaim = [...claims].map(([claim, n]) => `${n} ${claim}`).join(', ');
  return `${clicks} clicks, ${attempts.length} deliveries: acks p50 ${at(50)} ms, p99 ${at(99)} ms, ${late} over 3 s; claims ${byClaim || 'none'}`;
}

export class AssistantThreadsDrill {
  /** Where the mentions go: split-view threads, and agent DMs (`ts` '': a DM's prompts have no thread). */
  readonly #threads: Array<{ channel: string; ts: string; agent: boolean }> = [];
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
      const thread = { channel: `D0ASSIST${k}`, ts: `${base}.${String(k).padStart(6, '0')}`, agent: false };
      drill.#threads.push(thread);
      h.api.addMessage(thread.channel, { ts: thread.ts, user: 'UAUTOHUB', text: 'How can I help?', im: true });
      const started = (id: string) =>
        JSON.stringify(assistantThreadEnvelope({ eventId: id, channel: thread.channel, threadTs: thread.ts, viewing: `C0VIEW${k}` }));
      const id = `Ev-${tag}-open-${k}`;
      void slack.deliver(`open:${thread.ts}`, id, started(id));
      void slack.deliver(`open:${thread.ts}`, `${id}-b`, started(`${id}-b`), `${h.cloudTunnel.url}/slack/events`);
    }
    for (let k = 0; k < (traffic.agentDms ?? 0); k++) {
      // One opening of the DM, delivered twice (two event ids, one event_ts): its prompts set once, with no thread_ts.
      const dm = { channel: `D0AGENT${k}`, ts: '', agent: true };
      drill.#threads.push(dm);
      const eventTs = `${base}.${String(500 + k).padStart(6, '0')}`;
      const opened = (id: string) =>
        JSON.stringify(agentEnvelope({ eventId: id, type: 'app_home_opened', channel: dm.channel, viewing: `C0VIEWA${k}`, eventTs }));
      const id = `Ev-${tag}-agent-${k}`;
      void slack.deliver(`open:${dm.channel}`, id, opened(id));
      void slack.deliver(`open:${dm.channel}`, `${id}-b`, opened(`${id}-b`), `${h.cloudTunnel.url}/slack/events`);
    }
    const until = Date.now() + 15_000;
    while (drill.#threads.some((t) => !h.api.promptsOf(t.channel, t.ts)) && Date.now() < until) await sleep(50);
    return drill;
  }

  /**
   * Where mention `i` is written: a message in one of the split-view threads (a DM thread), or a top-level
   * message in an agent DM (no thread); sometimes after the person moved.
   */
  mention(i: number): { channel: string; threadTs?: string } {
    const thread = this.#threads[i % this.#threads.length]!;
    if (inShare(i, this.traffic.contextChanges, 3)) {
      const id = `Ev-${this.tag}-move-${this.#changes++}`;
      const viewing = `C0MOVED${this.#changes}`;
      const moved = thread.agent
        ? agentEnvelope({ eventId: id, type: 'app_context_changed', viewing })
        : assistantThreadEnvelope({ eventId: id, type: 'assistant_thread_context_changed', channel: thread.channel, threadTs: thread.ts, viewing });
      void this.slack.deliver(`move:${thread.channel}:${thread.ts}`, id, JSON.stringify(moved));
    }
    return thread.agent ? { channel: thread.channel } : { channel: thread.channel, threadTs: thread.ts };
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
    const gapMs = 1000 / (this.traffic.clickRate ?? CLICK_RATE);
    const start = Date.now();
    for (const [i, answer] of answers.entries()) {
      const ts = (answer.answer as { ts?: string } | undefined)?.ts;
      if (!ts || !inShare(i, this.traffic.clicks)) continue;
      // An answer is listed once (a streamed message under its ts): a ts clicked twice would be two clicks, counted as one heard twice.
      if (clicked.includes(ts)) continue;
      await sleep(start + clicked.length * gapMs - Date.now());
      clicked.push(ts);
      const form = feedbackClickForm({
        triggerId: `trigger-${this.tag}-${i}`,
        channel: answer.params.channel ?? '',
        messageTs: ts,
        ...(answer.params.thread_ts ? { threadTs: answer.params.thread_ts } : {}),
        button: i % 2 === 0 ? 'positive' : 'negative',
        ...(answer.params.metadata ? { metadata: JSON.parse(answer.params.metadata) as Record<string, unknown> } : {}),
      });
      void slack.interact(`${CLICK_PREFIX}${ts}`, `click-${i}`, form, `${h.hubTunnel.url}/slack/events`);
      void slack.interact(`${CLICK_PREFIX}${ts}`, `click-${i}-b`, form, `${h.cloudTunnel.url}/slack/events`);
    }
    await slack.settled();
    // Beside the scenario's row, in its log: the acks and claims of the clicks alone (the table's acks count every delivery).
    h.note(
      `assistant: ${clickFigures(
        slack.attempts.filter((a) => a.mention.startsWith(CLICK_PREFIX)),
        clicked.length,
      )}`,
    );
    // onFeedback's lines (`feedback <messageTs> <value>`), counted by the answer clicked.
    const wanted = new Set(clicked);
    const tally = () => {
      const counts = new Map<string, number>();
      for (const p of h.api.posts()) {
        const ts = p.params.channel === FEEDBACK_CHANNEL ? (p.params.text ?? '').split(' ')[1] : undefined;
        if (ts !== undefined && wanted.has(ts)) counts.set(ts, (counts.get(ts) ?? 0) + 1);
      }
      return counts;
    };
    const linesOf = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
    // Counted once every click is heard and no new line came for QUIET_MS with no post held (a click run twice
    // shows its second line after a post held 800 ms, perhaps after a wait for a slot), or once no line came
    // for STALL_MS (before: 10 s for all, then 500 ms, under the post hold: a click heard late was "never").
    let counts = tally();
    let lines = linesOf(counts);
    let lastLine = Date.now();
    for (;;) {
      await sleep(100);
      counts = tally();
      if (linesOf(counts) !== lines || h.api.held > 0) {
        lines = linesOf(counts);
        lastLine = Date.now();
      }
      const quiet = Date.now() - lastLine;
      if ((quiet >= QUIET_MS && counts.size === clicked.length) || quiet >= STALL_MS) break;
    }
    counts = new Map(clicked.map((ts) => [ts, counts.get(ts) ?? 0]));
    const twice = [...counts.values()].filter((n) => n > 1).length;
    const never = [...counts.values()].filter((n) => n === 0).length;
    if (twice) unmet.push(`${twice} of ${clicked.length} feedback clicks heard twice`);
    if (never) unmet.push(`${never} of ${clicked.length} feedback clicks never heard`);
    const prompts = this.#threads.map((t) => h.api.promptsOf(t.channel, t.ts)?.calls ?? 0);
    if (prompts.some((n) => n !== 1))
      unmet.push(`suggested prompts set ${prompts.join(', ')} times in the ${prompts.length} threads and opened DMs (once each expected)`);
    // An agent DM has no thread to title.
    const titled = this.#threads.filter((t) => !t.agent).map((t) => h.api.titleOf(t.channel, t.ts)?.calls ?? 0);
    if (titled.some((n) => n !== 1)) unmet.push(`titles set ${titled.join(', ')} times in the ${titled.length} threads (once each expected)`);
    return unmet;
  }

  /** Feedback clicks sent, prompts and titles set: for the progress line. */
  get threads(): number {
    return this.#threads.length;
  }
}
