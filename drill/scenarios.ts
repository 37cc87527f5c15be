/**
 * The drill's scenarios: each a small script of faults over the time events
 * are being sent (`from` and `to` are shares of that time; `to: 'end'` keeps
 * the fault until the scenario has been scored).
 */
import { request } from 'node:http';
import { signedHeaders } from '../lib/slack/index.js';
import { DRILL_SECRET, type Harness } from './harness.js';
import type { AssistantTraffic } from './assistant-traffic.js';
import type { AskTraffic } from './ask-traffic.js';
import type { ScheduleTraffic } from './schedule-check.js';

export interface Fault {
  label: string;
  from: number;
  /** When it ends, as a share of the sending time; `forMs` instead fixes its length in ms (an outage as long whatever the rate). */
  to: number | 'end';
  forMs?: number;
  start(h: Harness): Promise<void> | void;
  stop(h: Harness): Promise<void> | void;
}

export interface Scenario {
  name: string;
  summary: string;
  faults: Fault[];
  /** Said up front when duplicates cannot be ruled out (the store itself down at the moment of a claim). */
  duplicatesPossible?: string;
  /**
   * Said up front when the scenario's design loses what its edge keeps (a misconfiguration no copy can mend): the
   * slash commands and clicks kept are counted, not failed (drill/forms.ts), and the scenario checks instead that
   * the owner is told. A lost mention still fails it: the catch-up sweep reads mentions back from Slack's history.
   */
  lostByDesign?: string;
  /** Each mention is delivered a second time under a new event_id, with no retry headers. */
  redeliverUnderNewId?: boolean;
  /** This share of the mentions sent while a fault is on is in threads: by turns one people started before, and the bot's own. */
  threads?: number;
  /** Settings the hub is restarted under before the first mention, and restarted without after scoring. */
  hubEnv?: Record<string, string>;
  /** Cloud copies behind the balancer besides the first (Railway's `replicas: N`), for this scenario only. */
  extraReplicas?: number;
  /** Mentions are spread over this many channels. @default 1 */
  channels?: number;
  /** Settings both copies (hub and cloud) are restarted under for this scenario, on top of `hubEnv` for the hub. */
  copyEnv?: Record<string, string>;
  /** Mentions sent, whatever `--events` says (one quiet mention with no traffic after it). */
  events?: number;
  /** Mentions sent a second, whatever the drill's pace (20): a store that answers slowly is a store that answers few at a time. */
  rate?: number;
  /**
   * How long the drill waits for replies after Slack settles, per mention sent (on top of 30 s): the
   * default fits the demo's short turns; a scenario whose turns hold a slot for seconds, answered by one
   * copy, needs that slot time over the copy's 16 slots. @default 150
   */
  settleMsPerMention?: number;
  /** Slack as it really is, as shares of the mentions (each picked by its index, so a run is repeatable). */
  quirks?: Quirks;
  /** Every dead letter fails the scenario: its faults are all passing ones, so none is a real failure. */
  noDeadLetters?: boolean;
  /**
   * This share of the mentions gets a follow-up in its thread `afterMs` after it, written while its turn
   * runs: the follow-up must be answered after it (counted as out of order otherwise), knowing its answer.
   */
  followUps?: { share: number; afterMs: number };
  /**
   * This share of the mentions asks the bot (drill/bots/hang-bot.ts) to hang, half ignoring ctx.signal,
   * half waiting for it: each must end as a dead letter (not lost, never answered), and none may hold up the others.
   */
  hangs?: number;
  /** The demo turn files a ticket (a side effect outside Slack) in a ctx.step: a turn's ticket filed twice fails the scenario. */
  tickets?: boolean;
  /** The mentions are messages in split-view threads (drill/assistant-traffic.ts), with context changes and feedback clicks. */
  assistant?: AssistantTraffic;
  /**
   * The edge's inbox (drill/harness.ts): `kept`, the shared store as the Worker's secrets give it; `kept-foreign-key`,
   * the same, sealed with a store key the copies do not hold; `unreachable`, set but out of the edge's reach. Unset:
   * no inbox (the edge answers 503 when no copy does).
   */
  edgeInbox?: 'kept' | 'kept-foreign-key' | 'unreachable';
  /** The mentions are sent over at least this much of Slack's time (ms, divided by the drill's factor, as its retries are). */
  sendSimMs?: number;
  /** This share of the mentions are direct messages (one `message.im` event each). */
  dms?: number;
  /**
   * Beside this share of the mentions a person runs a slash command (`/autohub`, its response_url minted by the
   * fake Web API: 30 minutes / the factor, 5 uses), and beside this share clicks a feedback button. Each command
   * must be answered once (in its HTTP answer, at its response_url, or by DM), each click heard once.
   */
  forms?: { commands: number; clicks: number };
  /**
   * Each mention's turn asks its person (ctx.ask; drill/bots/ask-bot.ts unless --turn): the drill clicks as a person
   * would, a share first by a stranger, a share never (drill/ask-traffic.ts). Each turn ends once, as answered.
   */
  asks?: AskTraffic;
  /** The bot runs a schedule (drill/bots/schedule-bot.ts unless --turn): each slot once, none lost (drill/schedule-check.ts). */
  schedule?: ScheduleTraffic;
  /** The bot the copies run for this scenario, unless the drill runs your bot (--turn): then yours, and the scenario may not be exercised. */
  drillBot?: string;
}

export interface Quirks {
  /** Typed in a DM as "@bot ...": delivered as Slack does, as two events (app_mention, message.im) in either order. */
  dmPairs: number;
  /** Of the DM pairs, the share whose message.im goes straight to the cloud copy (the two events land on different copies). */
  splitPairs: number;
  /** The person presses Stop on the streamed answer, `stopAfterMs` after it began. */
  stop: number;
  stopAfterMs: number;
  /** Another app (its own bot_id and app_id) replies in the thread soon after the mention. */
  otherApp: number;
  /** Slack's ssl_check and an app_rate_limited notice are sent at the start; each must be answered 200. */
  notices: boolean;
}

/** Whether mention `i` is in a share: spread evenly over the mentions, shifted by `offset` so shares overlap differently. */
export function inShare(i: number, share: number, offset = 0): boolean {
  return Math.floor((i + offset + 1) * share) > Math.floor((i + offset) * share);
}

const cutHub: (from: number, to: number | 'end') => Fault = (from, to) => ({
  label: 'tunnel cut (530, error 1033)',
  from,
  to,
  start: (h) => void (h.hubTunnel.mode = 'cut'),
  stop: (h) => void (h.hubTunnel.mode = 'pass'),
});

/**
 * The hub killed while a turn of its own is in flight (not on any held post, which may be the cloud's),
 * dead until the scenario is scored: a hub restarted meanwhile could take its own turns back.
 */
const killHubMidTurn: (label: string, from: number) => Fault = (label, from) => ({
  label,
  from,
  to: 'end',
  start: async (h) => {
    await h.busy(h.hub, 10_000);
    await h.hub.kill();
  },
  stop: (h) => h.hub.restart(),
});

/** The owner the leg checks tell, in the drill (AUTOHUB_OWNER). */
/** Slack's first writes (chat.postMessage, chat.startStream) answer HTTP 500 for `forMs` from `from`. */
const postsFail: (label: string, from: number, forMs: number) => Fault = (label, from, forMs) => ({
  label,
  from,
  to: 'end',
  forMs,
  start: (h) => {
    for (const method of ['chat.postMessage', 'chat.startStream']) h.api.fail(method, { status: 500, body: { ok: false, error: 'internal' } });
  },
  stop: (h) => {
    for (const method of ['chat.postMessage', 'chat.startStream']) h.api.fail(method, null);
  },
});

/** The tunnel and the cloud copy both cut from 0.2 for `forMs`. */
const bothDown = (forMs: number): Fault[] => [
  { ...cutHub(0.2, 'end'), forMs },
  {
    label: 'cloud unreachable (530)',
    from: 0.2,
    to: 'end',
    forMs,
    start: (h) => void (h.cloudTunnel.mode = 'cut'),
    stop: (h) => void (h.cloudTunnel.mode = 'pass'),
  },
];

/** One oversized POST: the whole body written at once, chunked (no length) or with its length; its status, or what broke. */
function postOversized(url: string, body: Buffer, headers: Record<string, string>, chunked: boolean): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: chunked ? headers : { ...headers, 'content-length': String(body.length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'response error'));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'request error'));
    req.write(body);
    req.end();
  });
}

/**
 * Bodies past the edge's limit (6 MB, signed, half chunked and half with a length) thrown at the edge while mentions
 * arrive: each must get 413 and the edge must answer its health after them (a throw from one once ended the process).
 */
const oversizedBodies = (count: number): Fault => ({
  label: `${count} oversized bodies (6 MB, chunked and not)`,
  from: 0.2,
  to: 0.8,
  start: async (h) => {
    const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(6 * 1024 * 1024) }));
    const statuses: Array<number | string> = [];
    for (let i = 0; i < count; i++) {
      const headers = { 'content-type': 'application/json', ...(await signedHeaders(DRILL_SECRET, body, Date.now())) };
      statuses.push(await postOversized(h.edgeUrl, body, headers, i % 2 === 0));
    }
    const wrong = statuses.filter((s) => s !== 413);
    if (wrong.length) throw new Error(`${wrong.length} of ${count} oversized bodies were not answered 413 (${[...new Set(wrong)].join(', ')})`);
    const health = await fetch(h.edgeUrl.replace(/\/slack\/events$/, '/slack/health')).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    if (health !== 200) throw new Error(`the edge's health answered ${health} after the oversized bodies`);
  },
  stop: () => {},
});

const DRILL_OWNER = 'U0DRILLOWNER';

/** Until `check` holds, polling; throws `what` after `timeoutMs` (the fault is then not staged, and the scenario fails). */
async function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Both copies down (the Mac asleep, Railway out): stopped, so the edge's legs find nothing, then started again,
 * each draining the edge's inbox at start.
 */
const bothCopiesDown = (from: number, to: number): Fault => ({
  label: 'both copies down (stopped), started again after',
  from,
  to,
  start: async (h) => {
    if (h.storeKind !== 'redis-server') throw new Error("the edge's inbox needs redis-server (the drill's Upstash REST bridge)");
    await Promise.all([h.hub.stop(), h.cloud.stop()]);
  },
  stop: async (h) => {
    await Promise.all([h.hub.restart(), h.cloud.restart()]);
  },
});

/** Two hours of Slack's time. */
const TWO_HOURS_MS = 2 * 60 * 60_000;

/** The drill copies' retry window in the scenarios that outlast it: a run lasts this long at most. */
const SHORT_WINDOW = { AUTOHUB_TURN_RETRY_WINDOW_MS: '3000' };

export const SCENARIOS: Scenario[] = [
  { name: 'steady', summary: 'no faults: every mention goes to the hub', faults: [] },
  { name: 'hub-offline', summary: 'the Mac is off: the tunnel answers 530 the whole time', faults: [cutHub(0, 'end')] },
  { name: 'hub-flapping', summary: 'the tunnel is cut and restored twice while mentions arrive', faults: [cutHub(0.15, 0.35), cutHub(0.55, 0.75)] },
  {
    name: 'hub-slow',
    summary: "the hub answers after the edge's 1.4 s timeout (it already took the turn)",
    faults: [
      {
        label: 'hub answers after 2 s',
        from: 0.2,
        to: 0.8,
        start: (h) => {
          h.hubTunnel.slowMs = 2000;
          h.hubTunnel.mode = 'slow';
        },
        stop: (h) => void (h.hubTunnel.mode = 'pass'),
      },
    ],
  },
  {
    name: 'hub-crash',
    summary: 'the hub process is killed (SIGKILL) mid-run and started again later',
    faults: [{ label: 'hub process dead', from: 0.4, to: 0.75, start: (h) => h.hub.kill(), stop: (h) => h.hub.restart() }],
  },
  {
    name: 'hub-dies-mid-turn',
    summary:
      'posts take 800 ms to land and the hub is killed while its health says a turn of its own is in flight; those leases lapse and the cloud copy takes the turns over',
    faults: [
      { label: 'posts take 800 ms', from: 0, to: 'end', start: (h) => h.api.holdPosts(800), stop: (h) => h.api.holdPosts(0) },
      // Killed only mid-turn, so the cloud copy must take a turn over every run.
      killHubMidTurn('hub process dead', 0.5),
    ],
  },
  {
    name: 'hub-dies-mid-stream',
    summary:
      'replies stream slowly (a chunk every 600 ms) and the hub is killed while one of its streams is open: the cloud copy completes that same message; none is left half-written',
    hubEnv: { AUTOHUB_DEMO_CHUNK_MS: '600' },
    faults: [
      {
        label: 'hub process dead mid-stream',
        from: 0.3,
        to: 0.8,
        start: async (h) => {
          await h.streaming(10_000);
          await h.hub.kill();
        },
        stop: (h) => h.hub.restart(),
      },
    ],
  },
  {
    name: 'conversation',
    summary:
      'plans with tasks (the bot shows two steps as tasks), half the mentions followed up in their thread while their turn runs, and the hub killed mid-plan: every follow-up answered after the answer before it and knowing it, no task left spinning',
    copyEnv: { AUTOHUB_TURN: 'drill/turns/plan-turn.ts', DRILL_PLAN_STEP_MS: '1500' },
    followUps: { share: 0.5, afterMs: 150 },
    // 1.5 turns a mention (the follow-ups), each holding a slot about 3.5 s (two 1.5 s steps, then the
    // stream's pacing), mostly on the cloud copy alone once the hub is dead: 1.5 x 3.5 s / 16 slots = 330 ms.
    settleMsPerMention: 400,
    noDeadLetters: true,
    faults: [
      {
        label: 'hub process dead mid-plan',
        from: 0.3,
        to: 'end',
        start: async (h) => {
          await until(
            () => [...h.api.streams.values()].some((st) => st.state === 'streaming' && [...st.tasks.values()].some((t) => t.status === 'in_progress')),
            'no plan was in progress',
            10_000,
          );
          await h.hub.kill();
        },
        stop: (h) => h.hub.restart(),
      },
    ],
  },
  {
    name: 'redis-hang',
    summary: 'the claim store stops answering for a while; claims fail open',
    duplicatesPossible:
      'while the store hangs no claim can be made, so a delivery that reaches both copies (a Slack retry, a slow hub) can be answered twice; they are counted, not hidden',
    faults: [{ label: 'store hung', from: 0.3, to: 0.6, start: (h) => h.hangStore(true), stop: (h) => h.hangStore(false) }],
  },
  {
    name: 'cloud-500-once',
    summary: "seed 000's hole: the hub is off and the first delivery's cloud leg fails (both of the edge's tries); Slack's retry must still reach the cloud",
    faults: [
      cutHub(0, 'end'),
      {
        label: 'cloud answers 500 twice',
        from: 0,
        to: 'end',
        start: (h) => void (h.cloudTunnel.fail500 = 2),
        stop: (h) => void (h.cloudTunnel.fail500 = 0),
      },
    ],
  },
  {
    name: 'web-api-429-storm',
    summary: 'Slack allows one post per 100 ms and refuses the rest, as 429 and as 200 "ratelimited" in turn',
    faults: [
      {
        label: 'posts throttled',
        from: 0,
        to: 'end',
        start: (h) => {
          h.api.enforceInterval('chat.postMessage', 100, 'both');
          // Streams are throttled too (Tier 2 starts and stops): replies then go out as posts.
          h.api.enforceInterval('chat.startStream', 100, 'both');
          h.api.enforceInterval('chat.stopStream', 100, 'both');
          // One refusal that names no usable window: the copy waits its documented 1 s for "0".
          h.api.script('chat.postMessage', { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '0' } });
        },
        stop: (h) => {
          h.api.enforceInterval('chat.postMessage', 0);
          h.api.enforceInterval('chat.startStream', 0);
          h.api.enforceInterval('chat.stopStream', 0);
        },
      },
    ],
  },
  {
    name: 'web-api-outage',
    summary: 'posts fail with HTTP 500 for 3 s, then Slack recovers: the failed turns are retried (reading the thread first) and answered once',
    faults: [postsFail('posts answer HTTP 500', 0.2, 3000)],
  },
  {
    name: 'hub-misconfigured',
    summary:
      "the hub's signing secret is stale, so it refuses every delivery with 401: the edge, which checked the signature itself, sends them all to the cloud copy",
    hubEnv: { SLACK_SIGNING_SECRET: 'a-rotated-away-secret' },
    faults: [],
  },
  {
    name: 'store-blip-mid-turn',
    summary: 'turns think for 2.5 s; the store stops answering for 1.2 s meanwhile, so a renewal fails: the owner answers anyway, nothing is taken over',
    // 2.5 s turns at 25 mentions a second need about 60 at once; the default 16 would make it a backlog test.
    hubEnv: { AUTOHUB_DEMO_THINK_MS: '2500', AUTOHUB_MAX_TURNS: '100' },
    faults: [{ label: 'store hung', from: 0.5, to: 'end', forMs: 1200, start: (h) => h.hangStore(true), stop: (h) => h.hangStore(false) }],
  },
  {
    name: 'fence',
    summary:
      'Slack refuses the next writes with a Retry-After, the hub is frozen (SIGSTOP, a lid closed) for longer than its lease while its turns think or wait, the cloud copy takes them over, and then the store forgets everything (FLUSHALL) mid-turn: the woken hub writes nothing for the turns it lost, and nothing is lost',
    // Turns think 2 s: the hub's are in flight when it freezes, the cloud's taken-over ones when the store forgets.
    copyEnv: { AUTOHUB_DEMO_THINK_MS: '2000', AUTOHUB_MAX_TURNS: '100' },
    faults: [
      {
        // Stream starts only: a refused start closes its window, and the replies meanwhile are posted (not paced behind it).
        label: 'stream starts refused 429 (Retry-After 1 s)',
        from: 0.3,
        to: 'end',
        forMs: 1500,
        start: (h) => {
          const refused = { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '1' } };
          h.api.script('chat.startStream', refused, refused);
        },
        stop: () => {},
      },
      // Past the drill's 3 s lease: the cloud copy takes the hub's turns over meanwhile.
      { label: 'hub frozen (SIGSTOP) past its lease', from: 0.3, to: 'end', forMs: 4000, start: (h) => h.hub.freeze(), stop: (h) => h.hub.thaw() },
      {
        label: 'store flushed (FLUSHALL) mid-turn',
        from: 0.3,
        to: 'end',
        forMs: 5200,
        // After the takeovers and the hub's waking, while the taken-over turns still think.
        start: async (h) => {
          await new Promise((r) => setTimeout(r, 5000));
          await h.flushStore();
        },
        stop: () => {},
      },
    ],
  },
  {
    name: 'frozen-step',
    summary:
      'each turn thinks 2 s, then files a ticket in ctx.step (a side effect outside Slack); the hub is frozen (SIGSTOP) past its lease mid-think, the cloud copy takes its turns over and files their tickets; the woken hub files none of them again',
    copyEnv: { AUTOHUB_DEMO_THINK_MS: '2000', AUTOHUB_MAX_TURNS: '100' },
    tickets: true,
    noDeadLetters: true,
    faults: [
      {
        label: 'hub frozen (SIGSTOP) past its lease mid-think',
        from: 0.3,
        to: 'end',
        // Past the drill's 3 s lease: the cloud copy takes the thinking turns over meanwhile.
        forMs: 4500,
        start: async (h) => {
          await h.busy(h.hub, 10_000);
          await h.hub.freeze();
        },
        stop: (h) => h.hub.thaw(),
      },
    ],
  },
  {
    name: 'both-down',
    summary:
      "the tunnel and the cloud copy are both unreachable for longer than Slack's retries; the mentions Slack gave up on are read back from its history and answered, late",
    // 4 s: longer than Slack's last retry (5 minutes / the factor) of every mention sent in it.
    faults: bothDown(4000),
  },
  {
    name: 'both-down-long',
    summary:
      "both copies down for two hours of Slack's time, with mentions, DMs, thread follow-ups, slash commands and feedback clicks arriving throughout: the edge keeps each in its inbox and answers 200, so Slack neither retries into the outage nor turns the app's events off; the copies drain it when they start, each mention answered once, late, in its thread, each command at its response_url or (past its 30 minutes) by DM, each click heard once, the owner told once of the outage and once when all is answered",
    edgeInbox: 'kept',
    sendSimMs: TWO_HOURS_MS,
    dms: 0.2,
    threads: 0.3,
    forms: { commands: 0.2, clicks: 0.2 },
    // The feedback clicks need a bot that hears them (onFeedback posts a line a click).
    copyEnv: { AUTOHUB_TURN: 'drill/assistant-bot.ts', AUTOHUB_OWNER: DRILL_OWNER },
    noDeadLetters: true,
    faults: [bothCopiesDown(0.05, 0.95)],
  },
  {
    name: 'inbox-commands',
    summary:
      "both copies down for 40 minutes of Slack's time while slash commands and clicks arrive; every other command's listener fails its first run (a passing error), and those kept past their response_url's 30 minutes are answered by DM: each command answered once, none dropped as run, the owner told once of the outage and once when all are taken up",
    edgeInbox: 'kept',
    // 40 minutes of Slack's time: past the response_url's 30 for the first commands kept, inside it for the last.
    sendSimMs: 40 * 60_000,
    forms: { commands: 0.5, clicks: 0.2 },
    copyEnv: { AUTOHUB_TURN: 'drill/assistant-bot.ts', AUTOHUB_OWNER: DRILL_OWNER, DRILL_FLAKY_COMMANDS: '1', AUTOHUB_TURN_RETRY_DELAY_MS: '200' },
    noDeadLetters: true,
    faults: [bothCopiesDown(0.05, 0.95)],
  },
  {
    name: 'both-down-edge-key',
    summary:
      "both copies down for 10 minutes of Slack's time while mentions, DMs, slash commands and clicks arrive; the edge keeps each in its inbox, sealed with an AUTOHUB_STORE_KEY the copies do not hold (a Worker given another key): no copy can open them, each is counted as not opened, the owner is told once how many and that `npm run verify` compares the keys (never that they were answered), verify flags both copies; the mentions and DMs are read back from Slack's history by the catch-up sweep and answered once, late; the commands and clicks kept are lost",
    edgeInbox: 'kept-foreign-key',
    // 10 minutes of Slack's time (5 s at the drill's factor): enough outage to keep a few of each kind, and short.
    sendSimMs: 10 * 60_000,
    // A personal bot's pace: at the drill's 20 a second (and a command or click beside half of them) every delivery
    // is sealed and kept through the REST bridge in the drill's own process, whose keeps then outlast their 400 ms.
    rate: 5,
    dms: 0.2,
    forms: { commands: 0.3, clicks: 0.2 },
    copyEnv: { AUTOHUB_TURN: 'drill/assistant-bot.ts', AUTOHUB_OWNER: DRILL_OWNER },
    lostByDesign:
      'the edge seals what it keeps with a store key the copies do not hold, so no copy can open it: the slash commands and clicks it kept are lost (Slack keeps no history of them to read back); counted, and told to the owner',
    noDeadLetters: true,
    // From 0.2: the first mentions are answered live, so the store has a claim on record, as a bot in use has (a
    // fresh store that never served has no last claim for the catch-up sweep to read back from).
    faults: [bothCopiesDown(0.2, 0.9)],
  },
  {
    name: 'both-down-edge-store',
    summary:
      "as both-down, and the shared store is out of the edge's reach too: the edge cannot keep anything, answers 503, and the mentions Slack gave up on are read back from its history by the catch-up sweep and answered, late",
    edgeInbox: 'unreachable',
    faults: bothDown(4000),
  },
  {
    name: 'both-down-threads',
    summary:
      "as both-down, with 30% of the outage's mentions inside threads (by turns a thread people started before the scenario, and a follow-up in the bot's own thread): the catch-up reads the threads back and answers each in its thread",
    threads: 0.3,
    faults: bothDown(4000),
  },
  {
    name: 'overload',
    summary: 'mentions arrive at 2.5 times the rate Slack lets the bot post (one post per 400 ms in each of 4 channels): answered late, never lost or doubled',
    channels: 4,
    faults: [
      {
        label: 'one post per 400 ms per channel',
        from: 0,
        to: 'end',
        // Starting a stream is Tier 2 for the whole workspace: while it is closed replies go out as posts.
        start: (h) => {
          h.api.enforceInterval('chat.postMessage', 400, 'both', 'fraction', 'channel');
          h.api.enforceInterval('chat.startStream', 400, 'both');
        },
        stop: (h) => {
          h.api.enforceInterval('chat.postMessage', 0);
          h.api.enforceInterval('chat.startStream', 0);
        },
      },
    ],
  },
  {
    name: 'replicas',
    summary: 'the hub is off; three cloud replicas behind a round-robin balancer (502 for a dead one); one is killed while its posts are held',
    extraReplicas: 2,
    faults: [
      cutHub(0, 'end'),
      { label: 'posts take 400 ms', from: 0, to: 'end', start: (h) => h.api.holdPosts(400), stop: (h) => h.api.holdPosts(0) },
      {
        label: 'a replica killed',
        from: 0.5,
        to: 'end',
        // Killed only while it has a turn of its own in flight, so a replica's turn is always taken over.
        start: async (h) => {
          const replica = h.replica(0);
          if (!replica) return;
          await h.busy(replica, 10_000);
          await replica.kill();
        },
        stop: () => {},
      },
    ],
  },
  {
    name: 'slack-quirks',
    summary:
      'Slack as it is: a third of the mentions typed in a DM (two events each, either order, some to both copies), a fifth of the people press Stop mid-stream, answers of 5,000 to 30,000 characters, another app replying in a fifth of the threads, posts failing for 1.5 s, an ssl_check and an app_rate_limited notice',
    // The demo turn's answer length (the turn must honour it: see README, "Slack's limits and quirks") and a
    // chunk every 20 ms, so a long answer streams for about a second and appends happen.
    copyEnv: { AUTOHUB_DEMO_REPLY_CHARS: '5000-30000', AUTOHUB_DEMO_CHUNK_MS: '20' },
    quirks: { dmPairs: 1 / 3, splitPairs: 1 / 2, stop: 1 / 5, stopAfterMs: 40, otherApp: 1 / 5, notices: true },
    noDeadLetters: true,
    faults: [
      // Failed first writes are retried reading the thread first, where another app's reply may be.
      postsFail('posts and stream starts answer HTTP 500', 0.4, 1500),
    ],
  },
  {
    name: 'slack-duplicate-message',
    summary: 'Slack delivers each message a second time under a new event_id, without retry headers',
    faults: [],
    redeliverUnderNewId: true,
  },
  {
    name: 'quiet-hub-dies',
    summary:
      "one mention and no traffic after it, no peer URL, the production lease (10 s) and idle look (120 s): the hub is killed mid-turn; the edge's hint has the cloud copy look a lease after the ack and answer within 30 s",
    events: 1,
    copyEnv: { AUTOHUB_LEASE_MS: '10000', AUTOHUB_LEASE_RENEW_MS: '3000', AUTOHUB_REAPER_MS: '120000' },
    // The hub's turn thinks 5 s, so it is killed with the turn in flight.
    hubEnv: { AUTOHUB_DEMO_THINK_MS: '5000' },
    faults: [killHubMidTurn('hub process dead mid-turn, nothing sent after', 0)],
  },
  {
    name: 'edge-oversized',
    summary:
      'oversized bodies (6 MB, signed, chunked and with a length) are thrown at the edge among the mentions: each gets 413, the edge stays up and routes every mention',
    faults: [oversizedBodies(8)],
  },
  {
    name: 'store-spent',
    summary:
      "the store's monthly quota is spent (every request refused: ERR max requests limit exceeded) for longer than the retry window, and Slack's first writes fail meanwhile: the failed turns are kept by their copy and answered once the store answers, the owner told",
    copyEnv: { ...SHORT_WINDOW, AUTOHUB_OWNER: DRILL_OWNER },
    duplicatesPossible:
      "while the store refuses every claim, a delivery that reaches both copies (an ack past the edge's hub leg, a Slack retry) can be answered twice; they are counted, not hidden",
    faults: [
      // From the first mention: a turn whose lease the owner holds when the store stops answering ends as a dead letter (told) once the outage outlasts its window.
      { label: 'store quota spent', from: 0, to: 'end', forMs: 6000, start: (h) => h.spendStore(true), stop: (h) => h.spendStore(false) },
      postsFail('posts and stream starts answer HTTP 500', 0.2, 1500),
    ],
  },
  {
    name: 'bot-hangs',
    summary:
      'a tenth of the questions make the bot hang (half ignore ctx.signal, half wait for it) with 4 turn slots: each ends at its deadline as a dead letter, told to the owner, and the other mentions are answered, never starved',
    copyEnv: { ...SHORT_WINDOW, AUTOHUB_TURN: 'drill/bots/hang-bot.ts', AUTOHUB_MAX_TURNS: '4', AUTOHUB_OWNER: DRILL_OWNER },
    hangs: 0.1,
    faults: [],
  },
  {
    name: 'slow-store',
    summary:
      "every store round trip takes 500 ms, just past the claim's 450 ms fuse, for 8 s: claims, renewals and looks land though their copy gave up on them; every mention is answered once, and none becomes a dead letter",
    duplicatesPossible:
      'while no claim is seen to land, a delivery that reaches both copies (a Slack retry, a slow hub) can be answered twice; they are counted, not hidden',
    noDeadLetters: true,
    faults: [{ label: 'store round trips 500 ms', from: 0.1, to: 'end', forMs: 8000, start: (h) => h.slowStore(500), stop: (h) => h.slowStore(0) }],
  },
  {
    name: 'slow-store-commands',
    summary:
      "as slow-store, with slash commands and clicks among the mentions and the hub's answers 2 s slow, so the edge hands each delivery to the cloud copy too: both copies' claims fail open, and each command is still answered once and each click heard once",
    forms: { commands: 0.3, clicks: 0.2 },
    // A personal bot's pace, not the drill's 20 a second: at 500 ms a round trip a copy's 16 store sockets carry 32
    // commands a second, and past that the queue, not the store, is what the fuse times out.
    rate: 4,
    copyEnv: { AUTOHUB_TURN: 'drill/assistant-bot.ts' },
    duplicatesPossible: 'while no claim is seen to land, a mention that reaches both copies can be answered twice; they are counted, not hidden',
    noDeadLetters: true,
    faults: [
      { label: 'store round trips 500 ms', from: 0.1, to: 0.9, start: (h) => h.slowStore(500), stop: (h) => h.slowStore(0) },
      {
        label: 'hub answers after 2 s',
        from: 0.1,
        to: 'end',
        start: (h) => {
          h.hubTunnel.slowMs = 2000;
          h.hubTunnel.mode = 'slow';
        },
        stop: (h) => void (h.hubTunnel.mode = 'pass'),
      },
    ],
  },
  {
    name: 'cloud-broken',
    summary:
      'the copies prove each leg through the edge every second; the cloud copy answers 500 until the owner has been told (once, after three failed checks), then serves again: the owner is told once that it recovered',
    faults: [
      {
        label: 'cloud answers 500; owner told once, then of the recovery',
        from: 0,
        to: 'end',
        start: async (h) => {
          const legs = { AUTOHUB_EDGE_URL: h.edgeUrl.replace(/\/slack\/events$/, ''), AUTOHUB_VERIFY_EVERY_MS: '1000', AUTOHUB_OWNER: DRILL_OWNER };
          // One at a time, so one copy serves while the other restarts.
          await h.hub.reconfigure(legs);
          await h.cloud.reconfigure(legs);
          const told = (what: RegExp) => h.api.posts().filter((c) => c.params.channel === DRILL_OWNER && what.test(c.params.text ?? '')).length;
          const failing = /edge -> cloud leg failed \d+ checks in a row/;
          const recovered = /edge -> cloud leg answers again/;
          h.cloudTunnel.fail500 = 1_000_000_000;
          await until(() => told(failing) > 0, 'the owner was not told the cloud leg fails', 30_000);
          // Three more checks while it still fails: none of them tells the owner again.
          await new Promise((r) => setTimeout(r, 3_500));
          h.cloudTunnel.fail500 = 0;
          await until(() => told(recovered) > 0, 'the owner was not told the cloud leg recovered', 30_000);
          await new Promise((r) => setTimeout(r, 3_500));
          if (told(failing) !== 1 || told(recovered) !== 1) {
            throw new Error(`the owner was told ${told(failing)} time(s) that the cloud leg fails and ${told(recovered)} that it recovered, not once each`);
          }
        },
        stop: async (h) => {
          h.cloudTunnel.fail500 = 0;
          await h.hub.reconfigure({});
          await h.cloud.reconfigure({});
        },
      },
    ],
  },
  // Slack's AI-app surface under failover (docs/ai-apps.md).
  {
    name: 'assistant',
    summary:
      'both AI experiences: split-view threads and agent DMs (app_home_opened, tab messages), each opened on both copies, context switches, messages in the threads and top-level messages in the DMs as turns, posts taking 800 ms and the hub killed mid-turn, then a feedback click on answers handed to both copies: prompts set once a thread and a DM opening, titles once a thread, each click heard once',
    copyEnv: { AUTOHUB_TURN: 'drill/assistant-bot.ts' },
    assistant: { threads: 3, agentDms: 2, contextChanges: 1 / 4, clicks: 1 / 2 },
    faults: [
      { label: 'posts take 800 ms', from: 0, to: 'end', start: (h) => h.api.holdPosts(800), stop: (h) => h.api.holdPosts(0) },
      killHubMidTurn('hub process dead mid-turn', 0.5),
    ],
    noDeadLetters: true,
  },
];

/** The hub SIGKILLed (no drain, no goodbye) at `from`, for `forMs`, then started again. */
const killHub = (label: string, from: number, forMs: number): Fault => ({
  label,
  from,
  to: 'end',
  forMs,
  start: (h) => h.hub.kill(),
  stop: (h) => h.hub.restart(),
});

/** Both copies down (`bothCopiesDown`) from `from` for `forMs`, whatever the sending time. */
const bothCopiesDownFor = (from: number, forMs: number): Fault => ({ ...bothCopiesDown(from, from), to: 'end', forMs });

/** ctx.ask across failover (issue 44): the drill's own entries, kept apart for merges. */
SCENARIOS.push(
  {
    name: 'ask',
    summary:
      'each turn files a ticket in a ctx.step, then asks its person (ctx.ask) and waits, parked; the drill clicks as the person, a quarter first clicked by a stranger (told "not yours"), a quarter never (they time out); the hub is SIGKILLed while turns wait, then both copies go down while they wait (the clicks kept by the edge\'s inbox): each turn resumed once, with its person\'s choice or its timeout, its ticket filed once',
    drillBot: 'drill/bots/ask-bot.ts',
    // Ten minutes of Slack's time; the watch's gap, the waits and the clicks in the drill's own compressed time.
    sendSimMs: 10 * 60_000,
    edgeInbox: 'kept',
    tickets: true,
    noDeadLetters: true,
    // A wait of 8 s, at 20 mentions a second, keeps about 160 questions waiting: under the 200 the copies allow.
    copyEnv: { AUTOHUB_ASK_WATCH_MS: '500', DRILL_ASK_QUICK_MS: '1500', DRILL_ASK_LONG_MS: '8000' },
    asks: { timeouts: 1 / 4, strangers: 1 / 4, clickAfterMs: 300 },
    faults: [killHub('hub killed (SIGKILL) while turns wait', 0.2, 1500), bothCopiesDownFor(0.6, 1500)],
  },
  {
    name: 'schedule',
    summary:
      'a schedule every second (each firing files a ticket in a ctx.step, then posts its slot); the hub is SIGKILLed through four slots (the cloud copy fires them), then both copies are down over two (the latest runs once, late, when they return): each slot once, none lost while a copy was up, each ticket filed once',
    drillBot: 'drill/bots/schedule-bot.ts',
    sendSimMs: 20 * 60_000,
    tickets: true,
    noDeadLetters: true,
    edgeInbox: 'kept',
    copyEnv: { DRILL_TICK_MS: '1000', AUTOHUB_SCHEDULE_GRACE_MS: '300' },
    schedule: {
      everyMs: 1000,
      channel: 'C0TICK',
      hubDarkLabel: 'hub killed (SIGKILL) through four slots',
      bothDownLabel: 'both copies down (stopped), started again after',
    },
    faults: [killHub('hub killed (SIGKILL) through four slots', 0.05, 4000), bothCopiesDownFor(0.6, 2500)],
  },
);

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
