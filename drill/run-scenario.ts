/**
 * Running one scenario: mentions sent through the edge at an even pace while
 * its faults come and go, then Slack's retries settle, then the replies are
 * counted.
 */
import { eventKey } from '../lib/store/index.js';
import { LATE_NOTE } from '../lib/turn/index.js';
import { compareTs, type RecordedCall } from './sim/fake-web-api.js';
import { dmMentionPair, mentionEnvelope } from './sim/slack-events.js';
import { DRILL_SECRET, type Harness } from './harness.js';
import { inShare, type Scenario } from './scenarios.js';
import {
  countOutOfOrder,
  countSideEffects,
  countSpinning,
  isContinuation,
  isFinalPart,
  isWholeAnswer,
  scoreScenario,
  type Reply,
  type ScenarioScore,
  type WriteSpan,
} from './score.js';
import { SlackSim, type Attempt } from './slack-sim.js';
import { FEEDBACK_CHANNEL } from './assistant-bot.js';
import { formsScore, sendForms, type SentForm } from './forms.js';
import { AssistantThreadsDrill } from './assistant-traffic.js';
import { AskDrill } from './ask-traffic.js';
import { scheduleScore } from './schedule-check.js';
import { edgeKeyUnmet } from './edge-key.js';

export interface FaultWindow {
  label: string;
  start: number;
  end: number;
  /** Why the fault could not be put in place (the scenario then fails: it did not test what it says). */
  error?: string;
}

export interface ScenarioResult {
  name: string;
  summary: string;
  duplicatesPossible?: string;
  /** What the scenario loses by design, said up front (Scenario.lostByDesign): the commands and clicks its edge kept, counted, not failed. */
  lostByDesign?: string;
  startedAt: number;
  endedAt: number;
  score: ScenarioScore;
  attempts: Attempt[];
  replies: Reply[];
  faults: FaultWindow[];
  /** What the scenario expects beyond the usual (no dead letters, Slack's notices answered 200), where it was not met. */
  unmet?: string[];
  /**
   * What the scenario tests that this bot (`--turn`) never does (a ctx.step with a side effect, say): said,
   * not failed, since a bot without a step cannot file a ticket twice.
   */
  notExercised?: string[];
}

export interface RunOptions {
  events: number;
  /** Mentions per second while sending. @default 20 */
  rate?: number;
  factor: number;
  onProgress?: (line: string) => void;
  /** The copies run your bot, not the demo: who wrote a reply is read from its token, and an answer is whole when its last part says final. */
  ownBot?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** A message's text as the person sees it: `text`, or `markdown_text` where it was posted so. */
const textOf = (params: Record<string, string>) => params.text ?? params.markdown_text ?? '';

/** How much of a reply's text the report keeps as a sample. */
const SAMPLE_CHARS = 300;

function replyOf(c: RecordedCall, mention: string): Reply {
  const text = textOf(c.params);
  // The copy that wrote it: its token (each copy calls Slack with its own), else the demo turn's text.
  const writer = c.from ?? text;
  const by = writer.includes('drill-hub') ? 'hub' : writer.includes('drill-cloud') ? 'cloud' : 'unknown';
  return { mention, at: c.at, by, caughtUp: text.includes(LATE_NOTE), text: text.slice(0, SAMPLE_CHARS) };
}

/** The delivery a reply answers, by its metadata (app/listeners/reply.ts). */
function eventIdOf(metadata: string | undefined): string | undefined {
  try {
    const id = (JSON.parse(metadata ?? '{}') as { event_payload?: { event_id?: unknown } }).event_payload?.event_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export async function runScenario(h: Harness, scenario: Scenario, options: RunOptions): Promise<ScenarioResult> {
  if (scenario.events !== undefined) options = { ...options, events: scenario.events };
  // The tickets a turn's step files go to the harness's desk, whose address is known only now.
  if (scenario.tickets) scenario = { ...scenario, copyEnv: { ...scenario.copyEnv, AUTOHUB_DEMO_TICKET_URL: h.tickets.url } };
  // The scenario's own bot (ask, schedule), unless the drill runs yours.
  if (scenario.drillBot && !options.ownBot) scenario = { ...scenario, copyEnv: { ...scenario.copyEnv, AUTOHUB_TURN: scenario.drillBot } };
  if (scenario.hubEnv || scenario.copyEnv) await h.hub.reconfigure({ ...scenario.copyEnv, ...scenario.hubEnv });
  if (scenario.copyEnv) await h.cloud.reconfigure(scenario.copyEnv);
  if (scenario.extraReplicas) await h.addReplicas(scenario.extraReplicas);
  // The edge's inbox from this scenario's fresh edge on (sendAndScore resets the edge).
  if (scenario.edgeInbox) h.edgeInbox(scenario.edgeInbox);
  try {
    return await sendAndScore(h, scenario, options);
  } finally {
    h.api.pressStopWhen(null);
    if (scenario.edgeInbox) h.edgeInbox('none');
    if (scenario.extraReplicas) await h.removeReplicas();
    if (scenario.hubEnv || scenario.copyEnv) await h.hub.reconfigure({});
    if (scenario.copyEnv) await h.cloud.reconfigure({});
  }
}

/**
 * Whether a thread's messages hold one whole answer: the demo's by its text (every numbered word, its end mark);
 * your bot's by the turn's own metadata, its last part marked final.
 */
function wholeAnswer(parts: readonly RecordedCall[], ownBot: boolean | undefined): boolean {
  if (!ownBot) return isWholeAnswer(parts.map((p) => textOf(p.params)));
  return isFinalPart(parts.map((p) => p.params.metadata));
}

/** This app's messages in each thread, in Slack's ts order. */
function threadsOf(posts: readonly RecordedCall[]): Map<string, RecordedCall[]> {
  const threads = new Map<string, RecordedCall[]>();
  for (const p of posts) {
    const thread = p.params.thread_ts ?? '';
    threads.set(thread, [...(threads.get(thread) ?? []), p]);
  }
  const tsOf = (c: RecordedCall) => (c.answer as { ts?: string } | undefined)?.ts ?? '';
  for (const list of threads.values()) list.sort((a, b) => compareTs(tsOf(a), tsOf(b)));
  return threads;
}

async function sendAndScore(h: Harness, scenario: Scenario, options: RunOptions): Promise<ScenarioResult> {
  h.resetEdge();
  const deadBefore = await h.deadLetters();
  const slack = new SlackSim({ url: h.edgeUrl, signingSecret: DRILL_SECRET, factor: options.factor });
  // Split-view threads, opened before the first mention (their messages are the mentions).
  const assistant = scenario.assistant ? await AssistantThreadsDrill.open(h, slack, scenario.assistant, `${scenario.name}-${Date.now()}`) : undefined;
  const rate = scenario.rate ?? options.rate ?? 20;
  const sendMs = Math.max(1000, (options.events / rate) * 1000, (scenario.sendSimMs ?? 0) / options.factor);
  const startedAt = Date.now();
  const asking = scenario.asks ? new AskDrill(h, slack, scenario.asks, `${scenario.name}-${startedAt}`, startedAt) : undefined;
  const mentions: string[] = [];
  const windows: FaultWindow[] = [];
  // A thread holds replies to several mentions: a reply is the mention's its metadata names (a caught-up
  // delivery's id carries the ts), else its thread's.
  const mentionByEventId = new Map<string, string>();
  const mentionOf = (params: Record<string, string>) => {
    const id = eventIdOf(params.metadata);
    return /^Ev-catchup-.+-(\d+\.\d+)$/.exec(id ?? '')?.[1] ?? (id && mentionByEventId.get(id)) ?? params.thread_ts ?? '';
  };
  // scenario.threads: a thread people started before the scenario, in each channel; the bot's own is its first mention's.
  const peoplesThread = `${Math.floor(startedAt / 1000) - 600}.000000`;
  for (let c = 0; scenario.threads && c < (scenario.channels ?? 1); c++) {
    h.api.addMessage((scenario.channels ?? 1) > 1 ? `C0DRILL${c}` : 'C0DRILL', { ts: peoplesThread, user: 'U0OTHER', text: 'a thread people started' });
  }
  let duringFaults = 0;
  let threaded = 0;
  const quirks = scenario.quirks;
  const unmet: string[] = [];
  const lost = scenario.lostByDesign !== undefined;
  /** Mentions whose person presses Stop (by ts; the stream's thread). */
  const stoppers = new Set<string>();
  let dmPairs = 0;
  /** Mentions the bot is asked to hang on (scenario.hangs): each must end as a dead letter. */
  const hanging = new Set<string>();
  if (quirks) {
    h.api.pressStopWhen((st) => stoppers.has(st.thread_ts ?? ''), quirks.stopAfterMs);
    // What else Slack sends to the same URL (https://docs.slack.dev/reference/events/app_rate_limited;
    // ssl_check: https://docs.slack.dev/interactivity/implementing-slash-commands). Both must get a 200.
    if (quirks.notices) {
      for (const notice of [await slack.sslCheck(), await slack.appRateLimited()]) {
        if (notice.status !== 200) unmet.push(`${notice.kind} answered ${notice.status}, not 200`);
      }
    }
  }

  const faultRuns = scenario.faults.map(async (fault) => {
    await sleep(startedAt + fault.from * sendMs - Date.now());
    const window: FaultWindow = { label: fault.label, start: Date.now(), end: Number.NaN };
    windows.push(window);
    try {
      await fault.start(h);
    } catch (error) {
      // Recorded, not thrown: one fault that cannot be staged must not cost the other scenarios' results.
      window.error = (error as Error).message;
      window.end = Date.now();
      return undefined;
    }
    if (fault.forMs !== undefined) await sleep(window.start + fault.forMs - Date.now());
    else if (fault.to === 'end') return { fault, window };
    else await sleep(startedAt + fault.to * sendMs - Date.now());
    await fault.stop(h);
    window.end = Date.now();
    return undefined;
  });

  const deliveries: Promise<void>[] = [];
  /** Mentions and the follow-ups written in their threads while they ran, by event id. */
  const followPairs: Array<{ earlier: string; later: string }> = [];
  /** Slash commands and clicks sent beside the mentions (scenario.forms). */
  const forms: SentForm[] = [];
  for (let i = 0; i < options.events; i++) {
    await sleep(startedAt + (i * sendMs) / options.events - Date.now());
    // When it is sent, as Slack stamps it (to the millisecond here, then the index for uniqueness). A coarser
    // ts puts a mention before the moment it was really sent: before a catch-up window that began later (its
    // "swept to"), or inside a window that ended at a claim made before the mention was sent.
    const sentAt = Date.now();
    const ts = `${Math.floor(sentAt / 1000)}.${String(sentAt % 1000).padStart(3, '0')}${String(i % 1000).padStart(3, '0')}`;
    mentions.push(ts);
    const channels = scenario.channels ?? 1;
    const inAssistant = assistant?.mention(i);
    const dmPair = quirks !== undefined && inShare(i, quirks.dmPairs);
    // scenario.dms: a message in the person's DM with the bot, one `message.im` event.
    const plainDm = !dmPair && inAssistant === undefined && scenario.dms !== undefined && inShare(i, scenario.dms, 5);
    const dm = dmPair || inAssistant !== undefined || plainDm;
    const channel = inAssistant?.channel ?? (dm ? 'D0DRILL' : channels > 1 ? `C0DRILL${i % channels}` : 'C0DRILL');
    const eventId = `Ev-${scenario.name}-${startedAt}-${i}`;
    for (const id of [eventId, `${eventId}-again`, `${eventId}-mention`, `${eventId}-im`]) mentionByEventId.set(id, ts);
    // Of the mentions sent while a fault is on, the share `threads` is in a thread: by turns one people started, and the bot's own.
    const share = !dm && i > 0 && windows.some((w) => Number.isNaN(w.end)) ? scenario.threads : undefined;
    const inThread = share !== undefined && Math.floor((duringFaults + 1) * share) > Math.floor(duringFaults++ * share);
    const threadTs = inAssistant?.threadTs ?? (inThread ? (threaded++ % 2 === 0 ? peoplesThread : mentions[0]!) : undefined);
    // Each question its own text under the quirks: the demo turn picks a long answer's length from it, so a
    // retry or a taker-over writes the same answer.
    // scenario.hangs: the bot is asked to hang on this share, alternately ignoring its signal and waiting for it.
    const hang = scenario.hangs !== undefined && inShare(i, scenario.hangs, 3);
    if (hang) hanging.add(ts);
    const text = quirks ? `<@UAUTOHUB> hello, question ${i}` : hang ? `<@UAUTOHUB> hang: ${hanging.size % 2 ? 'ignore' : 'listen'} (${i})` : asking?.text(i);
    asking?.sent(i, ts);
    const envelope = mentionEnvelope({
      eventId,
      ts,
      channel,
      ...(text ? { text } : {}),
      ...(threadTs ? { threadTs } : {}),
      // A message in an assistant thread is a DM: `message` with channel_type im.
      ...(inAssistant ? { type: 'message' as const, channelType: 'im' as const, text: `what about question ${i}?` } : {}),
      ...(plainDm ? { type: 'message' as const, channelType: 'im' as const, text: `a direct question ${i}` } : {}),
    });
    const body = JSON.stringify(envelope);
    // Slack holds the message whatever happens to its deliveries: the catch-up sweep reads it back.
    h.api.addMessage(channel, {
      ts,
      user: 'U0PERSON',
      text: String((envelope.event as { text?: unknown }).text ?? ''),
      im: dm,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    if (quirks && inShare(i, quirks.stop, 1)) stoppers.add(ts);
    if (quirks && inShare(i, quirks.otherApp, 2)) setTimeout(() => h.api.addOtherAppReply(channel, ts), 30).unref();
    if (dmPair) {
      // One message typed in the DM, two events: in either order, the second a moment later, some straight to the cloud copy.
      const ids = [`${eventId}-mention`, `${eventId}-im`] as const;
      const [first, second] = dmMentionPair({ eventIds: ids, ts, channel, ...(text ? { text } : {}), order: i % 2 === 0 ? 'mention-first' : 'im-first' });
      const split = quirks !== undefined && inShare(dmPairs++, quirks.splitPairs);
      deliveries.push(slack.deliver(ts, String(first.event_id), JSON.stringify(first)));
      deliveries.push(
        sleep(i % 50).then(() => slack.deliver(ts, String(second.event_id), JSON.stringify(second), split ? `${h.cloudTunnel.url}/slack/events` : undefined)),
      );
    } else deliveries.push(slack.deliver(ts, eventId, body));
    const follow = scenario.followUps;
    if (follow && !dm && inShare(i, follow.share, 3)) {
      // The person writes again in the thread while the first turn runs (autohub answers a mention in its thread).
      const followId = `${eventId}-follow`;
      followPairs.push({ earlier: eventId, later: followId });
      deliveries.push(
        sleep(follow.afterMs).then(() => {
          const at = Date.now();
          const followTs = `${Math.floor(at / 1000)}.${String(at % 1000).padStart(3, '0')}${String((i + 500) % 1000).padStart(3, '0')}`;
          mentions.push(followTs);
          mentionByEventId.set(followId, followTs);
          const followed = mentionEnvelope({ eventId: followId, ts: followTs, channel, threadTs: ts, text: `<@UAUTOHUB> and a follow-up to ${i}` });
          h.api.addMessage(channel, { ts: followTs, user: 'U0PERSON', text: `<@UAUTOHUB> and a follow-up to ${i}`, thread_ts: ts });
          return slack.deliver(followTs, followId, JSON.stringify(followed));
        }),
      );
    }
    if (scenario.forms) forms.push(...sendForms(h, slack, scenario.forms, { i, tag: `${scenario.name}-${startedAt}`, factor: options.factor }));
    if (scenario.redeliverUnderNewId) {
      const again = JSON.stringify(mentionEnvelope({ eventId: `Ev-${scenario.name}-${startedAt}-${i}-again`, ts, channel }));
      deliveries.push(sleep(100).then(() => slack.deliver(ts, `Ev-${scenario.name}-${startedAt}-${i}-again`, again)));
    }
    if (i % 10 === 0) options.onProgress?.(`${scenario.name}: ${i + 1}/${options.events} sent, ${h.api.posts().length} replies so far`);
  }
  const open = (await Promise.all(faultRuns)).filter((x) => x !== undefined);
  await Promise.all(deliveries);
  await slack.settled();

  // Replies can trail the acks (rate-limit windows, slow turns): wait until every mention has one, or nothing moves.
  // Posts and streamed messages alike, from this scenario on.
  const repliesNow = () => h.api.posts().filter((c) => c.at >= startedAt);
  let last = -1;
  let quietSince = Date.now();
  // Long enough for a throttled Web API to work through every reply at one per 100 ms,
  // and for retries after a Web API outage (0.5 s, 2 s, 8 s apart).
  const deadline = Date.now() + 30_000 + options.events * (scenario.settleMsPerMention ?? 150);
  // Mentions no copy ever claimed (Slack gave up on them) come back only through the catch-up
  // sweep: give it its window (Slack's retry window and the gap between sweeps, both / the factor).
  // Three sweep windows: a busy machine (CI runs other suites beside the drill) can miss one.
  const sweepMs = (3 * 360_000) / options.factor + 1000;
  let quietMs = 3000;
  while (Date.now() < deadline) {
    const replies = repliesNow();
    // A note of the turn (a question it waits on, say) is not its answer.
    const answered = new Set(replies.filter((c) => !isContinuation(textOf(c.params), c.params.metadata)).map((c) => mentionOf(c.params)));
    // A long answer is in when all of it is: its first message alone is not the reply (a Stop press ends it early).
    const stopped = quirks ? new Set([...h.api.streams.values()].filter((st) => st.state === 'stopped_by_user').map((st) => st.thread_ts ?? '')) : undefined;
    const threads = quirks ? threadsOf(replies) : undefined;
    const whole = (m: string) => !threads || stopped!.has(m) || wholeAnswer(threads.get(m) ?? [], options.ownBot);
    const formsDone = !scenario.forms || formsScore(h, slack, forms, FEEDBACK_CHANNEL, scenario.copyEnv?.AUTOHUB_OWNER, lost).pending === 0;
    if (mentions.every((m) => answered.has(m) && whole(m)) && formsDone && Date.now() - quietSince > 300) break;
    quietMs = Math.max(3000, sweepMs);
    // Quiet is counted from the end of the last fault too: nothing can be caught up while it lasts.
    for (const w of windows) if (!Number.isNaN(w.end)) quietSince = Math.max(quietSince, w.end);
    if (replies.length !== last) {
      last = replies.length;
      quietSince = Date.now();
    } else if (Date.now() - quietSince > quietMs && !((await h.pending()) ?? 0) && !asking?.waiting(answered)) {
      // Quiet, and no turn is still leased or waiting for a retry (or parked on its question): nothing more will come.
      break;
    }
    options.onProgress?.(`${scenario.name}: waiting for replies, ${answered.size}/${mentions.length} answered`);
    await sleep(100);
  }
  for (const { fault, window } of open) {
    await fault.stop(h);
    window.end = Date.now();
  }
  const final = repliesNow();
  // A long answer's later parts are the same reply, not a second one.
  const replies = final.filter((c) => !isContinuation(textOf(c.params), c.params.metadata)).map((c) => replyOf(c, mentionOf(c.params)));
  const stoppedByUser = new Set([...h.api.streams.values()].filter((st) => st.state === 'stopped_by_user').map((st) => st.thread_ts ?? ''));
  // Answers that reached the thread cut or out of order (a Stop press is the person's own cut, and not counted).
  const cut = quirks
    ? [...threadsOf(final)].filter(([thread, parts]) => mentions.includes(thread) && !stoppedByUser.has(thread) && !wholeAnswer(parts, options.ownBot)).length
    : 0;
  if (assistant) {
    const answers = final.filter((c) => !isContinuation(textOf(c.params), c.params.metadata) && mentions.includes(mentionOf(c.params)));
    unmet.push(...(await assistant.finish(answers)));
  }
  const notExercised: string[] = [];
  if (asking) {
    const asked = await asking.finish(replies, options.ownBot === true);
    unmet.push(...asked.unmet);
    notExercised.push(...asked.notExercised);
    if (asking.summary) options.onProgress?.(`${scenario.name}: ${asking.summary}`);
  }
  let slotFigures: { slots: number; slotsTwice: number; slotsLost: number } | undefined;
  if (scenario.schedule) {
    const ticked = scheduleScore(h.api.posts(), windows, scenario.schedule, startedAt, options.ownBot === true);
    unmet.push(...ticked.unmet);
    notExercised.push(...ticked.notExercised);
    slotFigures = { slots: ticked.figures.slots, slotsTwice: ticked.figures.slotsTwice, slotsLost: ticked.figures.slotsLost };
    options.onProgress?.(
      `${scenario.name}: ${ticked.figures.slots} slots, ${ticked.figures.slotsTwice} twice, ${ticked.figures.slotsLost} lost, ${ticked.figures.byCloudWhileHubDark} fired by the cloud copy while the hub was dark`,
    );
  }
  const deadLetters = (await h.deadLetters()) - deadBefore;
  const formFigures = scenario.forms ? formsScore(h, slack, forms, FEEDBACK_CHANNEL, scenario.copyEnv?.AUTOHUB_OWNER, lost) : undefined;
  if (formFigures) unmet.push(...formFigures.unmet);
  // Slack's disable rule (drill/slack-sim.ts): the app's events turned off is a failure whatever else held.
  if (slack.eventsDisabledAt !== undefined) {
    unmet.push(
      `Slack turned the app's events off ${((slack.eventsDisabledAt - startedAt) / 1000).toFixed(1)} s in (under 5% of event deliveries answered 200 over 60 minutes); ${slack.unsent.length} deliveries never sent`,
    );
  }
  const keptByEdge = slack.attempts.filter((a) => a.route === 'inbox').length;
  // Not a failure by itself: Slack retries an event the edge answered 503; a command or click it could not keep is lost, and counted so.
  const notKeptByEdge = [...h.edgeEvents()].filter(([event]) => event.startsWith('edge.inbox_')).reduce((n, [, c]) => n + c, 0);
  if ((scenario.edgeInbox === 'kept' || scenario.edgeInbox === 'kept-foreign-key') && keptByEdge === 0)
    unmet.push('the edge kept nothing in its inbox: the scenario did not test what it says');
  if (scenario.edgeInbox === 'kept-foreign-key') {
    unmet.push(...(await edgeKeyUnmet(h, { owner: scenario.copyEnv?.AUTOHUB_OWNER ?? '', startedAt })));
  }
  if (scenario.edgeInbox === 'unreachable' && !slack.attempts.some((a) => a.status === 503)) {
    unmet.push('the edge answered no delivery 503 with its store out of reach: the scenario did not test what it says');
  }
  const ordered = scenario.followUps ? await conversationScore(h, final, followPairs, mentions, unmet) : undefined;
  const filed = h.tickets.filed.filter((t) => t.at >= startedAt);
  const tickets = scenario.tickets
    ? {
        ...countSideEffects(filed.map((t) => mentionByEventId.get(t.eventId) ?? t.eventId)),
        stepRepeats: h.tickets.repeats.filter((t) => t.at >= startedAt).length,
      }
    : undefined;
  if (tickets?.sideEffects === 0) {
    // The demo turn files one in every turn: with it, none filed means the scenario broke. A bot of your own may have no step.
    if (options.ownBot)
      notExercised.push('no step filed a ticket: this bot runs no ctx.step with a side effect (the demo turn does: run the drill without --turn)');
    else unmet.push('no step filed a ticket: the scenario did not test what it says');
  }
  if (tickets?.sideEffectsTwice) {
    // Which ones and by whom, to find in the copies' logs (DRILL_COPY_LOG).
    const byEvent = new Map<string, string[]>();
    for (const t of filed) byEvent.set(t.eventId, [...(byEvent.get(t.eventId) ?? []), t.by]);
    const twice = [...byEvent].filter(([, by]) => by.length > 1).map(([id, by]) => `${id} (${by.join(', ')})`);
    unmet.push(`steps run twice: ${twice.slice(0, 10).join('; ')}`);
  }
  if (scenario.noDeadLetters && deadLetters > 0) unmet.push(`${deadLetters} dead letters, none of them a real failure`);
  // Each mention's end: its replies, and whether it is a dead letter (by the event ids of this scenario's deliveries).
  const dead = new Set((await h.deadEventIds()).map((id) => mentionByEventId.get(id)).filter((m): m is string => m !== undefined));
  const score = scoreScenario(mentions, slack.attempts, replies, { dead, expectedDead: hanging });
  const hungNotDead = [...hanging].filter((m) => !dead.has(m)).length;
  if (hungNotDead > 0) unmet.push(`${hungNotDead} of ${hanging.size} hanging turns did not end as dead letters`);
  return {
    name: scenario.name,
    summary: scenario.summary,
    ...(scenario.duplicatesPossible ? { duplicatesPossible: scenario.duplicatesPossible } : {}),
    ...(scenario.lostByDesign ? { lostByDesign: scenario.lostByDesign } : {}),
    startedAt,
    endedAt: Date.now(),
    score: {
      ...score,
      deadLetters,
      // A stream left open or closed by Slack without its ending, or an answer cut: a reply the user sees cut off.
      halfWritten:
        [...h.api.streams.values()].filter((st) => mentions.includes(st.thread_ts ?? '') && (st.state === 'streaming' || st.state === 'expired')).length + cut,
      ...(quirks ? { stoppedByUser: mentions.filter((m) => stoppedByUser.has(m)).length } : {}),
      ...(ordered ?? {}),
      ...(tickets ?? {}),
      ...(scenario.edgeInbox ? { keptByEdge, notKeptByEdge } : {}),
      eventsDisabled: slack.eventsDisabledAt !== undefined,
      ...(formFigures ? formFigures.figures : {}),
      ...(asking?.figures ?? {}),
      ...(slotFigures ?? {}),
    },
    attempts: slack.attempts,
    replies,
    faults: windows,
    ...(unmet.length ? { unmet } : {}),
    ...(notExercised.length ? { notExercised } : {}),
  };
}

/**
 * The `conversation` figures: follow-ups answered out of order (their first write before the last write of the
 * answer before them, from the Web API's calls), tasks left spinning in this scenario's messages, and a
 * follow-up that did not see the answer before it (the drill's plan turn says `saw N`) as unmet.
 */
/** The drill's workspace (mentionEnvelope's default team). */
const TEAM = 'T0AUTOHUB';

async function conversationScore(
  h: Harness,
  final: readonly RecordedCall[],
  all: ReadonlyArray<{ earlier: string; later: string }>,
  mentions: readonly string[],
  unmet: string[],
): Promise<Pick<ScenarioScore, 'outOfOrder' | 'spinningTasks'>> {
  // The order autohub keeps is the order its claims were taken in: a follow-up whose delivery reached a copy
  // before the message before it (Slack retried that one) is answered first, and is not out of order.
  const claimed = async (id: string) => h.claimedAt(eventKey(TEAM, id));
  const pairs: Array<{ earlier: string; later: string }> = [];
  for (const pair of all) {
    const [a, b] = [await claimed(pair.earlier), await claimed(pair.later)];
    if (a === undefined || b === undefined || a <= b) pairs.push(pair);
  }
  const eventOfTs = new Map<string, string>();
  for (const p of final) {
    const ts = (p.answer as { ts?: string } | undefined)?.ts;
    const id = eventIdOf(p.params.metadata);
    if (ts && id) eventOfTs.set(ts, id);
  }
  const spans = new Map<string, WriteSpan>();
  for (const c of h.api.calls) {
    if (c.status !== 200 || (c.answer as { ok?: boolean } | undefined)?.ok !== true) continue;
    const id = eventOfTs.get(c.params.ts ?? (c.answer as { ts?: string }).ts ?? '');
    if (!id) continue;
    const span = spans.get(id);
    spans.set(id, { first: Math.min(span?.first ?? c.at, c.at), last: Math.max(span?.last ?? c.at, c.at) });
  }
  const textOfEvent = new Map<string, string>();
  for (const p of final) {
    const id = eventIdOf(p.params.metadata);
    if (id && !isContinuation(textOf(p.params), p.params.metadata)) textOfEvent.set(id, textOf(p.params));
  }
  const blind = pairs.filter(({ later }) => /\(saw 0\)/.test(textOfEvent.get(later) ?? '')).length;
  if (blind > 0) unmet.push(`${blind} follow-ups answered without the answer before them in their history`);
  const ours = [...h.api.streams.values()].filter((st) => mentions.includes(st.thread_ts ?? ''));
  const posted = h.api.calls
    .filter((c) => c.method === 'chat.postMessage' && mentions.includes(c.params.thread_ts ?? ''))
    .map((c) => ({ tasks: h.api.tasksOf((c.answer as { ts?: string } | undefined)?.ts ?? '') ?? new Map() }));
  const outOfOrder = countOutOfOrder(pairs, spans);
  // Which ones, to find in the copies' logs (DRILL_COPY_LOG).
  if (outOfOrder > 0) {
    const which = pairs.filter((p) => countOutOfOrder([p], spans) > 0).map((p) => p.later);
    unmet.push(`follow-ups answered out of order: ${which.slice(0, 10).join(', ')}`);
  }
  // Posted replies show their tasks as blocks (lib/turn/task-blocks.ts): counted too.
  return { outOfOrder, spinningTasks: countSpinning([...ours, ...posted]) };
}
