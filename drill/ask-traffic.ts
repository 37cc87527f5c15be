/**
 * The `ask` scenario's people (`Scenario.asks`): each mention's turn asks its person a question (ctx.ask,
 * drill/bots/ask-bot.ts). The drill watches the Web API for each question and answers it as a person would,
 * through the edge (kept by its inbox while both copies are down): most are clicked by the person asked;
 * a share is clicked first by someone else (told "not yours", nothing resumes); a share is never clicked
 * and times out. Each turn must end once: with the person's choice, or its timeout; never the stranger's.
 */
import { clickForm } from './sim/ask-click.js';
import type { Harness } from './harness.js';
import type { RecordedCall } from './sim/fake-web-api.js';
import { inShare } from './scenarios.js';
import type { SlackSim } from './slack-sim.js';
import { TIMED_OUT } from './bots/ask-bot.js';

export interface AskTraffic {
  /** This share of the questions is never clicked: each must time out (`quick` in the mention's text). */
  timeouts: number;
  /** This share is clicked first by someone the question is not for. */
  strangers: number;
  /** How long the person takes to click, after the question shows (ms). */
  clickAfterMs: number;
}

/** The person every mention is from (mentionEnvelope's default), and the stranger who clicks first. */
const PERSON = 'U0PERSON';
const STRANGER = 'U0STRANGER';
const NOT_YOURS = 'This question is not yours to answer.';
/** How often the person clicks, each time Slack shows them the click failed. */
const PERSON_TRIES = 3;

interface Planned {
  i: number;
  timeout: boolean;
  stranger: boolean;
}

/** A question's message: its thread (the mention's ts), its ts and its first button. */
function questionOf(c: RecordedCall): { thread: string; ts: string; actionId: string; value: string } | undefined {
  if (!(c.params.blocks ?? '').includes('autohub_ask:')) return undefined;
  try {
    const blocks = JSON.parse(c.params.blocks!) as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>;
    const button = blocks.find((b) => b.elements?.[0]?.action_id?.startsWith('autohub_ask:'))?.elements?.[0];
    const ts = (c.answer as { ts?: string } | undefined)?.ts;
    if (!button?.action_id || !button.value || !ts || !c.params.thread_ts) return undefined;
    return { thread: c.params.thread_ts, ts, actionId: button.action_id, value: button.value };
  } catch {
    return undefined;
  }
}

export class AskDrill {
  readonly #plans = new Map<string, Planned>();
  /** Questions answered (clicked, or left to time out), by the thread they are in: one a turn. */
  readonly #seen = new Set<string>();
  #strangerClicks = 0;
  #strangerAcked = 0;
  #personRetries = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly h: Harness,
    private readonly slack: SlackSim,
    private readonly o: AskTraffic,
    private readonly tag: string,
    private readonly startedAt: number,
  ) {
    this.#timer = setInterval(() => this.#look(), 50);
  }

  /** Mention `i`'s text: "quick" for those left to time out. */
  text(i: number): string {
    return inShare(i, this.o.timeouts, 1) ? `<@UAUTOHUB> file a ticket, quick (${i})` : `<@UAUTOHUB> file a ticket (${i})`;
  }

  /** Mention `i`, sent at `ts`: its question is answered as planned when it shows. */
  sent(i: number, ts: string): void {
    this.#plans.set(ts, { i, timeout: inShare(i, this.o.timeouts, 1), stranger: inShare(i, this.o.strangers, 4) });
  }

  #look(): void {
    for (const c of this.h.api.posts()) {
      if (c.at < this.startedAt) continue;
      const q = questionOf(c);
      if (!q || this.#seen.has(q.thread)) continue;
      const plan = this.#plans.get(q.thread);
      if (!plan) continue;
      this.#seen.add(q.thread);
      if (plan.timeout) continue;
      /** A click, sent once (Slack never retries one); whether it was answered 200. */
      const click = async (user: string, n: number) => {
        const id = `${this.tag}-ask-${plan.i}-${n}`;
        const form = clickForm({
          triggerId: `trig-${id}`,
          user,
          channel: c.params.channel ?? '',
          messageTs: q.ts,
          threadTs: q.thread,
          actionId: q.actionId,
          value: q.value,
        });
        await this.slack.interact(`click:${id}`, id, form);
        return this.slack.attempts.some((a) => a.eventId === id && a.status === 200);
      };
      const run = (async () => {
        if (plan.stranger) {
          this.#strangerClicks += 1;
          if (await click(STRANGER, 0)) this.#strangerAcked += 1;
        }
        await new Promise((r) => setTimeout(r, this.o.clickAfterMs));
        // Slack shows the person an error when its request is not answered 200 in 3 s: they click again, as people do.
        for (let n = 1; n <= PERSON_TRIES && !(await click(PERSON, n)); n++) this.#personRetries += 1;
      })();
      this.#pending.add(run);
      void run.finally(() => this.#pending.delete(run));
    }
  }

  /** Whether a turn that asked is still unanswered (`answered`: the mentions with a reply): parked turns hold no lease the drill can see. */
  waiting(answered: ReadonlySet<string>): boolean {
    return [...this.#seen].some((thread) => !answered.has(thread));
  }

  /**
   * Stops watching; what was not as it should be. `replies`: this scenario's answers (notes aside), with the
   * mention each answers. Nothing asked at all, with your bot: not exercised.
   */
  async finish(replies: ReadonlyArray<{ mention: string; text?: string | undefined }>, ownBot: boolean): Promise<{ unmet: string[]; notExercised: string[] }> {
    clearInterval(this.#timer);
    await Promise.all([...this.#pending]);
    if (this.#seen.size === 0) {
      return ownBot
        ? { unmet: [], notExercised: ['no turn asked a question: this bot never calls ctx.ask (the drill ask bot does: run the drill without --turn)'] }
        : { unmet: ['no turn asked a question: the scenario did not test what it says'], notExercised: [] };
    }
    const unmet: string[] = [];
    const wrong: string[] = [];
    let timedOut = 0;
    let chosen = 0;
    for (const [ts, plan] of this.#plans) {
      const mine = replies.filter((r) => r.mention === ts);
      if (mine.length !== 1) continue; // lost or doubled: scored as such
      const text = mine[0]!.text ?? '';
      const expected = plan.timeout ? TIMED_OUT : `Yes, chosen by <@${PERSON}>.`;
      if (ownBot) continue;
      // A caught-up turn's answer begins with the late note: the answer is its last line.
      if (text.endsWith(expected)) {
        if (plan.timeout) timedOut += 1;
        else chosen += 1;
      } else wrong.push(`${plan.i}: "${text.slice(0, 60)}"`);
    }
    if (wrong.length) unmet.push(`${wrong.length} turns ended otherwise than asked (the person's choice, or the timeout): ${wrong.slice(0, 5).join('; ')}`);
    if (this.#seen.size < this.#plans.size) unmet.push(`${this.#plans.size - this.#seen.size} of ${this.#plans.size} turns never asked their question`);
    const told = this.h.api.calls.filter(
      (c) => c.at >= this.startedAt && c.method === 'chat.postEphemeral' && c.params.user === STRANGER && c.params.text === NOT_YOURS,
    ).length;
    // A stranger's click Slack gave up on (no 200 in 3 s) may have run or not: told at most once a click, at least once an answered one.
    if (told < this.#strangerAcked || told > this.#strangerClicks) {
      unmet.push(`${this.#strangerClicks} clicks by someone else (${this.#strangerAcked} answered 200), ${told} told "not yours" (one each)`);
    }
    this.figures = { asked: this.#seen.size, askChosen: chosen, askTimedOut: timedOut };
    // Said in the progress line: what the questions came to.
    this.summary = `${this.#seen.size} questions: ${chosen} chosen by their person (${this.#strangerClicks} clicked by someone else first, ${this.#personRetries} clicked again after Slack showed an error), ${timedOut} timed out`;
    return { unmet, notExercised: [] };
  }

  /** What the questions came to, once finished. */
  summary = '';
  figures: { asked: number; askChosen: number; askTimedOut: number } | undefined;
}
