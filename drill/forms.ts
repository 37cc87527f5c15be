/**
 * Slash commands and feedback clicks sent beside a scenario's mentions
 * (`Scenario.forms`), and what became of each: a command is answered once,
 * in its HTTP answer (a copy took it live), at its response_url, or by DM
 * (past the response_url's life); a click is heard once (the drill's
 * assistant bot posts a line a click). Slack never retries either
 * (https://docs.slack.dev/interactivity/implementing-slash-commands), so
 * each is sent once.
 */
import { CATCHING_UP_TEXT } from '../lib/inbox/index.js';
import type { Harness } from './harness.js';
import { inShare } from './scenarios.js';
import { commandForm, feedbackClickForm } from './sim/slack-events.js';
import type { SlackSim } from './slack-sim.js';

/** Slack: a response_url takes messages for 30 minutes after the invocation. */
const RESPONSE_URL_MS = 30 * 60_000;

export interface SentForm {
  kind: 'command' | 'click';
  /** The attempt's key in the sim, and the response_url's id. */
  id: string;
  /** The command's text (`drill-<i>`), or the clicked message's ts. */
  tag: string;
}

export interface FormFigures {
  commands: number;
  commandsAnswered: number;
  commandsTwice: number;
  /** Answered in the HTTP answer (live), at the response_url, by DM. */
  commandsLive: number;
  commandsByResponseUrl: number;
  commandsByDm: number;
  clicks: number;
  clicksHeard: number;
  clicksTwice: number;
}

/** Beside mention `i`: a slash command and a click, each in its share. Sent now; the sim records each attempt. */
export function sendForms(
  h: Harness,
  slack: SlackSim,
  shares: { commands: number; clicks: number },
  o: { i: number; tag: string; factor: number },
): SentForm[] {
  const sent: SentForm[] = [];
  const validMs = RESPONSE_URL_MS / o.factor;
  if (inShare(o.i, shares.commands, 7)) {
    const id = `${o.tag}-cmd-${o.i}`;
    const form = new URLSearchParams(commandForm({ triggerId: `trig-${id}`, text: `drill-${o.i}` }));
    form.set('response_url', h.api.responseUrl(id, validMs));
    sent.push({ kind: 'command', id, tag: `drill-${o.i}` });
    void slack.interact(`command:${id}`, id, form.toString());
  }
  if (inShare(o.i, shares.clicks, 11)) {
    const id = `${o.tag}-click-${o.i}`;
    // An answer from before the outage: a message the bot wrote, in the drill's channel.
    const messageTs = `1700000000.${String(o.i).padStart(6, '0')}`;
    const raw = new URLSearchParams(feedbackClickForm({ triggerId: `trig-${id}`, channel: 'C0DRILL', messageTs, button: o.i % 2 ? 'negative' : 'positive' }));
    const payload = JSON.parse(raw.get('payload') ?? '{}') as Record<string, unknown>;
    payload.response_url = h.api.responseUrl(id, validMs);
    sent.push({ kind: 'click', id, tag: messageTs });
    void slack.interact(`click:${id}`, id, new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
  }
  return sent;
}

/**
 * What became of the forms so far; `pending`: those not yet answered or heard, and the owner's notes not yet told.
 * `lostByDesign` (Scenario.lostByDesign): a form the edge kept cannot be answered, so it is neither waited for nor
 * failed as unanswered (the others still must be, each once), and the owner's notes are the scenario's own to check.
 */
export function formsScore(
  h: Harness,
  slack: SlackSim,
  forms: readonly SentForm[],
  feedbackChannel: string,
  owner: string | undefined,
  lostByDesign = false,
): { figures: FormFigures; unmet: string[]; pending: number } {
  const posts = h.api.posts();
  const live = (id: string) => {
    const answer = slack.attempts.find((a) => a.eventId === id)?.answer;
    try {
      const text = (JSON.parse(answer ?? '{}') as { text?: unknown }).text;
      return typeof text === 'string' && text !== CATCHING_UP_TEXT ? 1 : 0;
    } catch {
      return 0;
    }
  };
  const figures: FormFigures = {
    commands: 0,
    commandsAnswered: 0,
    commandsTwice: 0,
    commandsLive: 0,
    commandsByResponseUrl: 0,
    commandsByDm: 0,
    clicks: 0,
    clicksHeard: 0,
    clicksTwice: 0,
  };
  // Kept by the edge; or not accepted (Slack never retries a form: one answered 503 because the edge's keep failed,
  // or not within Slack's 3 s, is lost whatever the key, and is counted as such: not kept, or over 3 s).
  const excused = (f: SentForm) =>
    lostByDesign && slack.attempts.some((a) => a.eventId === f.id && (a.route === 'inbox' || typeof a.status !== 'number' || a.status >= 300));
  /** Commands and clicks unanswered that the scenario does not excuse. */
  let owed = 0;
  for (const f of forms) {
    if (f.kind === 'command') {
      const byLive = live(f.id);
      const byHook = h.api.hooks.filter((c) => c.id === f.id && c.status === 200).length;
      const byDm = posts.filter((p) => p.params.channel === 'U0PERSON' && (p.params.text ?? '').includes(`/autohub ${f.tag})`)).length;
      const n = byLive + byHook + byDm;
      figures.commands += 1;
      if (n > 0) figures.commandsAnswered += 1;
      if (n > 1) figures.commandsTwice += 1;
      if (n === 0 && !excused(f)) owed += 1;
      figures.commandsLive += byLive;
      figures.commandsByResponseUrl += byHook;
      figures.commandsByDm += byDm;
    } else {
      const n = posts.filter((p) => p.params.channel === feedbackChannel && (p.params.text ?? '').startsWith(`feedback ${f.tag} `)).length;
      figures.clicks += 1;
      if (n > 0) figures.clicksHeard += 1;
      if (n > 1) figures.clicksTwice += 1;
      if (n === 0 && !excused(f)) owed += 1;
    }
  }
  const unmet: string[] = [];
  if (lostByDesign) {
    if (owed > 0) unmet.push(`${owed} slash commands and clicks the edge did not keep were never answered or heard`);
    if (figures.commandsTwice > 0) unmet.push(`${figures.commandsTwice} of ${figures.commands} slash commands answered twice`);
    if (figures.clicksTwice > 0) unmet.push(`${figures.clicksTwice} of ${figures.clicks} clicks heard twice`);
    return { figures, unmet, pending: owed };
  }
  if (figures.commandsAnswered < figures.commands)
    unmet.push(`${figures.commands - figures.commandsAnswered} of ${figures.commands} slash commands never answered`);
  if (figures.commandsTwice > 0) unmet.push(`${figures.commandsTwice} of ${figures.commands} slash commands answered twice`);
  if (figures.clicksHeard < figures.clicks) unmet.push(`${figures.clicks - figures.clicksHeard} of ${figures.clicks} clicks never heard`);
  if (figures.clicksTwice > 0) unmet.push(`${figures.clicksTwice} of ${figures.clicks} clicks heard twice`);
  let notes = 0;
  if (owner && slack.attempts.some((a) => a.route === 'inbox')) {
    // Told once of the outage, once when all is answered (app/inbox.ts).
    const told = posts.filter((p) => p.params.channel === owner).map((p) => p.params.text ?? '');
    const kept = told.filter((t) => /the edge kept \d+ deliveries/.test(t)).length;
    const done = told.filter((t) => /^All \d+ deliveries the edge kept are taken up/.test(t)).length;
    notes = (kept === 0 ? 1 : 0) + (done === 0 ? 1 : 0);
    if (kept !== 1) unmet.push(`the owner was told of the kept deliveries ${kept} times, not once`);
    if (done !== 1) unmet.push(`the owner was told all kept deliveries are answered ${done} times, not once`);
  }
  return { figures, unmet, pending: figures.commands - figures.commandsAnswered + (figures.clicks - figures.clicksHeard) + notes };
}
