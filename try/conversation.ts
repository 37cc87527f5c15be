/**
 * A person talking to your bot in the simulated Slack, for `npm run try` and
 * `npm run play`: the drill's whole system (hub and cloud copy as `npm start`
 * starts them, the edge, a claim store, the fake Web API), one message at a
 * time, and what the person sees of the answer as it streams.
 */
import { loadTurnModule } from '../app/turn-module.js';
import { AUTOHUB_BOT, type FakeStream, type RecordedCall } from '../drill/sim/fake-web-api.js';
import { agentEnvelope, mentionEnvelope } from '../drill/sim/slack-events.js';
import { DRILL_SECRET, startHarness, type Harness } from '../drill/harness.js';
import { SlackSim, type Attempt } from '../drill/slack-sim.js';
import { shownFor, type Shown } from './shown.js';

/** Slack's retries come this much sooner than Slack's own schedule (1 and 5 minutes become 3 s and 15 s). */
export const TRY_FACTOR = 20;

export interface SayOptions {
  text: string;
  /** Written in a DM with the bot (a `message.im`), not as a mention in a channel. */
  dm?: boolean;
  /** A follow-up in this thread (the ts of the message that began it). */
  threadTs?: string;
}

/** A message the person sent. */
export interface Said {
  ts: string;
  eventId: string;
  channel: string;
  /** The thread the bot answers in: the message's own, or the one it was written in. */
  thread: string;
  text: string;
  dm: boolean;
  sentAt: number;
  /** Settles when Slack is done delivering it (retries included). */
  delivered: Promise<void>;
}

/** One of the bot's messages in the thread, as the person sees it now. */
export interface ReplyPart {
  ts: string;
  text: string;
  /** Still streaming (Slack shows it growing). */
  open: boolean;
  /** The person pressed Stop on it. */
  stopped: boolean;
  /** Which copy wrote it: its instance (drill-hub, drill-cloud), from the token it called Slack with. */
  by: string | undefined;
  /** A note to the person (retrying, could not answer), not the answer. */
  note: boolean;
  /** The turn's own numbering: 0 for an answer's first message; undefined while it streams. */
  part: number | undefined;
  final: boolean;
  /** Whether the bot's answer offers feedback buttons (a `feedback_buttons` element in its blocks). */
  feedback: boolean;
  at: number;
  /** Its last write (its stream's last append, its stop or update): when the person could read it whole. */
  doneAt: number;
}

export interface ReplyView {
  parts: ReplyPart[];
  /** The answer's text so far, its messages joined (notes left out). */
  text: string;
  /** The answer is all there: its last message final, none still streaming. */
  done: boolean;
  /** Answers begun (first messages): 1 when answered once. */
  answers: number;
  /** The copy that wrote the answer's first message. */
  by: string | undefined;
}

interface Payload {
  event_id?: string;
  part?: number;
  final?: boolean;
  note?: boolean;
}

function payloadOf(metadata: string | undefined): Payload | undefined {
  if (!metadata) return undefined;
  try {
    return (JSON.parse(metadata) as { event_payload?: Payload }).event_payload;
  } catch {
    return undefined;
  }
}

/** The calls that change a message already posted. */
const WRITES = new Set(['chat.appendStream', 'chat.stopStream', 'chat.update']);

const instanceOf = (token: string | undefined) => token?.replace(/^xoxb-/, '');

function hasFeedback(blocks: string | undefined): boolean {
  return blocks !== undefined && blocks.includes('"feedback_buttons"');
}

export interface Conversation {
  h: Harness;
  slack: SlackSim;
  /** The bot's module, as given (undefined: the demo turn). */
  turn: string | undefined;
  say(o: SayOptions): Said;
  /**
   * The person opens their DM with the bot, as they must before writing in it: Slack sends `app_home_opened`
   * with `tab: "messages"` (the agent view), and the bot sets its prompts (and greets, when it does). Settles once
   * Slack is done delivering it.
   */
  openDm(): Promise<void>;
  reply(said: Said): ReplyView;
  /** What the bot showed beside the answer `view`: the thread's status, the answer's tasks, the prompts where the person writes. */
  shown(said: Said, view: ReplyView): Shown;
  /** Slack's deliveries of a message: the route each took and who acked it. */
  attempts(said: Said): Attempt[];
  /** Store commands that touched this message's keys (its claim, lease, record), so far. */
  storeCommands(said: Said): number | undefined;
  close(): Promise<void>;
}

/**
 * Which bot runs: `--turn FILE`, else AUTOHUB_TURN, else the demo. Checked
 * here first, so a module that cannot load is one line before any copy starts.
 */
export async function resolveTurn(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const turn = flag ?? (env.AUTOHUB_TURN || undefined);
  if (turn !== undefined) await loadTurnModule(turn);
  return turn;
}

export async function startConversation(o: { turn: string | undefined; onLog?: (instance: string, line: string) => void }): Promise<Conversation> {
  const h = await startHarness({ factor: TRY_FACTOR, ...(o.turn !== undefined ? { turn: o.turn } : {}), ...(o.onLog ? { onLog: o.onLog } : {}) });
  const slack = new SlackSim({ url: h.edgeUrl, signingSecret: DRILL_SECRET, factor: TRY_FACTOR });
  let n = 0;
  // Store commands by the message ts or event id they name (every key of a turn holds one of the two).
  const commands: Array<readonly (string | number)[]> = [];
  if (h.bridge) h.bridge.onCommand = (command) => commands.push(command);

  /** The time of the last call that wrote message `ts` (an append, a stop, an update), or `from` when none did since. */
  const lastWrite = (ts: string, from: number): number =>
    h.api.calls.reduce((at, w) => (WRITES.has(w.method) && w.params.ts === ts && w.at > at ? w.at : at), from);
  const partOf = (c: RecordedCall | { ts: string; st: FakeStream }): ReplyPart => {
    if ('st' in c) {
      return {
        ts: c.ts,
        text: c.st.text,
        open: c.st.state === 'streaming',
        stopped: c.st.state === 'stopped_by_user',
        by: instanceOf(c.st.from),
        note: false,
        part: undefined,
        final: false,
        feedback: false,
        at: c.st.startedAt,
        doneAt: lastWrite(c.ts, c.st.startedAt),
      };
    }
    const p = payloadOf(c.params.metadata);
    const ts = (c.answer as { ts?: string } | undefined)?.ts ?? '';
    const st = h.api.streams.get(ts);
    return {
      ts,
      text: c.params.text ?? c.params.markdown_text ?? '',
      open: false,
      stopped: st?.state === 'stopped_by_user',
      by: instanceOf(c.from),
      note: p?.note === true,
      part: p?.part,
      final: p?.final === true || (p === undefined && st === undefined),
      // A streamed message gets its blocks when it is stopped or rewritten.
      feedback:
        hasFeedback(c.params.blocks) ||
        h.api.calls.some((w) => (w.method === 'chat.stopStream' || w.method === 'chat.update') && w.params.ts === ts && hasFeedback(w.params.blocks)),
      at: c.at,
      doneAt: lastWrite(ts, c.at),
    };
  };

  const conversation: Conversation = {
    h,
    slack,
    turn: o.turn,
    say: ({ text, dm = false, threadTs }) => {
      n += 1;
      const sentAt = Date.now();
      const ts = `${Math.floor(sentAt / 1000)}.${String(sentAt % 1000).padStart(3, '0')}${String(n % 1000).padStart(3, '0')}`;
      const channel = dm ? 'D0PERSON' : 'C0GENERAL';
      const eventId = `Ev-try-${sentAt}-${n}`;
      // In a channel the person mentions the bot; in a DM they just write.
      const typed = dm ? text : `<@${AUTOHUB_BOT.user}> ${text}`;
      const envelope = mentionEnvelope({
        eventId,
        ts,
        channel,
        text: typed,
        ...(threadTs ? { threadTs } : {}),
        ...(dm ? { type: 'message' as const, channelType: 'im' as const } : {}),
      });
      // Slack holds the message whatever happens to its deliveries: the bot reads the thread, and the catch-up sweep history.
      h.api.addMessage(channel, { ts, user: 'U0PERSON', text: typed, im: dm, ...(threadTs ? { thread_ts: threadTs } : {}) });
      const delivered = slack.deliver(ts, eventId, JSON.stringify(envelope));
      return { ts, eventId, channel, thread: threadTs ?? ts, text, dm, sentAt, delivered };
    },
    openDm: async () => {
      n += 1;
      const eventId = `Ev-try-open-${Date.now()}-${n}`;
      await slack.deliver(`open:D0PERSON:${n}`, eventId, JSON.stringify(agentEnvelope({ eventId, type: 'app_home_opened', channel: 'D0PERSON' })));
    },
    shown: (said, view) =>
      shownFor(
        h.api.calls,
        { channel: said.channel, thread: said.thread, dm: said.dm, since: said.sentAt },
        view.parts.filter((p) => !p.note).map((p) => p.ts),
        (ts) => h.api.tasksOf(ts),
      ),
    reply: (said) => {
      // A message with no turn metadata (a stream the person stopped before it was closed) is this message's by its thread and time.
      const mine = (metadata: string | undefined) => {
        const id = payloadOf(metadata)?.event_id;
        return id === undefined || id === said.eventId;
      };
      const posts = h.api
        .posts()
        .filter((c) => c.params.channel === said.channel && c.params.thread_ts === said.thread && c.at >= said.sentAt && mine(c.params.metadata))
        .map(partOf);
      // A stream still open has no metadata yet: it is this message's when it is in its thread and began after it.
      const open = [...h.api.streams]
        .filter(([, st]) => st.state === 'streaming' && st.channel === said.channel && st.thread_ts === said.thread && st.startedAt >= said.sentAt)
        .map(([ts, st]) => partOf({ ts, st }));
      const parts = [...posts, ...open].sort((a, b) => a.at - b.at || a.ts.localeCompare(b.ts));
      const answer = parts.filter((p) => !p.note);
      const firsts = answer.filter((p) => p.part === 0 || (p.part === undefined && !p.open));
      const last = answer.at(-1);
      return {
        parts,
        text: answer.map((p) => p.text).join(''),
        done: last !== undefined && !last.open && (last.final || last.stopped) && !answer.some((p) => p.open),
        answers: firsts.length + (firsts.length === 0 && answer.some((p) => p.open) ? 1 : 0),
        by: (firsts[0] ?? answer[0])?.by,
      };
    },
    attempts: (said) => slack.attempts.filter((a) => a.eventId === said.eventId),
    storeCommands: (said) =>
      h.bridge ? commands.filter((c) => c.some((arg) => typeof arg === 'string' && (arg.includes(said.ts) || arg.includes(said.eventId)))).length : undefined,
    close: async () => {
      await slack.settled();
      await h.close();
    },
  };
  return conversation;
}
