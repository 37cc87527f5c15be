/**
 * The turn handle: what the runner builds for every turn it runs, whatever
 * brought it (a live delivery, the catch-up sweep, a takeover, a retry, a
 * replay), and owns to the end. A listener says what (`answer(event, body,
 * takeTurn)`); the handle does how:
 *
 *   read the thread first when the lease says so (a dead owner or an
 *   ambiguous failure may have answered already) -> the turn, with its
 *   request and ctx -> the reply written (posted, or streamed, in as many
 *   messages as Slack's limits need) through a client whose every write is
 *   fenced by the lease -> what the run came to (`outcome`).
 *
 * The handle writes no end to the lease: the runner's TurnEnds
 * (lib/runner/turn-ends.ts) does, once the listener returns, from `outcome`,
 * so a listener that answers and then throws still ends once. A write that
 * the fence keeps back (this copy lost the turn) ends the turn quietly: the
 * copy that owns it answers. Any other failure closes what the turn had open
 * and goes to the runner, which retries or dead-letters it.
 */
import type { WebClient } from '@slack/web-api';
import {
  classifyTurnFailure,
  isLeaseLost,
  isTurnInterrupted,
  LeaseLostError,
  rootError,
  StoreUnavailableError,
  TurnDeadlineError,
  type TurnFailure,
} from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { noteMetadata, partMetadata } from './parts.js';
import { capReply, DEFAULT_MAX_REPLY_CHARS } from './reply-cap.js';
import { readHistory } from './history.js';
import { threadOf, turnRequest, type EnvelopeFields, type MessageEvent } from './request.js';
import { StepBook, stepKey } from './steps.js';
import type { Lists, Records, ReleaseReply, StreamDetail, TurnSteps } from '../store/index.js';
import { MAX_ASK_TIMEOUT_MS, parkTurn, resumeOf, TurnParkedError, type AskAnswer, type AskQuestion } from '../ask/index.js';
import { checkThread, checkTopLevel, mayBeAnswered, type BotIdentity } from './thread.js';
import type { CopyRole, TakeTurn, TurnContext, TurnNotes } from './types.js';
import { replyShape } from './reply-shape.js';
import { ReplyWriter, type WriteOutcome } from './writer.js';
import type { FencedLease, TurnFence } from './fence.js';
import { stepTask, TaskBoard, TASK_DISPLAY_MODES, type TaskDisplayMode } from './tasks.js';
import { AiTurn, type TurnAi } from './ai-turn.js';
import { BOT_LOOP_NOTE } from './bots.js';

/** The first line of a reply found by the catch-up sweep. */
export const LATE_NOTE = '_(Sorry, this answer comes late: I could not be reached when you wrote.)_';
/** The first line of a schedule's answer run late (its slot missed while no copy ran). */
export function scheduleLateNote(slot: string): string {
  return `_(This comes late: it was due at ${slot.slice(0, 16).replace('T', ' ')} UTC, when I could not run.)_`;
}
/** What the person sees when their turn could not be answered at all. */
export const DEAD_NOTE = '_(Sorry, I could not answer this. My owner has been told.)_';
/** What the person sees once when their turn is being retried for long (a model API overloaded, Slack down). */
export const RETRYING_NOTE = '_(This is taking longer than usual: I am trying again.)_';
/** A retry this late, or a turn's second failure, is "for long". */
export const RETRYING_NOTE_AFTER_MS = 30_000;
/** Added to a message left open by a run that failed mid-stream; the next run rewrites it. */
export const INTERRUPTED_NOTE = '\n\n_(interrupted: trying again)_';
/** The reply of a turn skipped past its conversation's bound (lib/conversation): final, so a takeover does not post it again. */
export const SKIPPED_NOTE = '_(You wrote again before I got to this one, so I am answering your newer message instead.)_';
/** Added to a message left open by a turn cut off past its deadline (the dead letter's note follows). */
export const CUT_OFF_NOTE = '\n\n_(interrupted)_';

/** autohub's own words for each note (a module's `notes` rewords them). */
const DEFAULT_NOTES: TurnNotes = {
  late: LATE_NOTE,
  dead: DEAD_NOTE,
  retrying: RETRYING_NOTE,
  skipped: SKIPPED_NOTE,
  interrupted: INTERRUPTED_NOTE,
  cutOff: CUT_OFF_NOTE,
  botLoop: BOT_LOOP_NOTE,
};

/** A turn's own display mode (`ctx.taskDisplayMode`), checked, else the module's. Anything else is the turn's bug. */
function displayModeOf(own: unknown, module: TaskDisplayMode | undefined): TaskDisplayMode | undefined {
  if (own === undefined) return module;
  if (!(TASK_DISPLAY_MODES as readonly unknown[]).includes(own)) {
    throw new TypeError(`ctx.taskDisplayMode is ${JSON.stringify(own)} (expected one of ${TASK_DISPLAY_MODES.join(', ')})`);
  }
  return own as TaskDisplayMode;
}

/**
 * What a run came to, as the handle saw it; TurnEnds writes it to the lease
 * when the listener returns. None (undefined): the run had nothing to say.
 */
export type RunOutcome =
  | { kind: 'answered'; ts: string | null; record?: StreamDetail }
  | { kind: 'already-answered'; ts: string }
  | { kind: 'parked'; qid: string }
  | { kind: 'interrupted'; ts: string | null }
  | { kind: 'abandoned' };

/**
 * What a failed turn came to (`failed`), for the runner to schedule what
 * follows: a look when its retry is due, the owner told of a dead letter, or
 * (a failed turn that holds no lease and could get none) the turn kept for the store.
 */
export type TurnEnd =
  | { kind: 'over' }
  | { kind: 'retry'; retryInMs: number }
  | { kind: 'dead'; key: string; attempts: number; reason: string }
  | { kind: 'unleased'; failure: TurnFailure };

/** What the store did with a failed turn's lease (TurnEnds fails it), with the lease's key and runs. */
export interface FailReply {
  key: string;
  attempts: number;
  reply: ReleaseReply;
  retryInMs?: number;
}

export interface TurnHandleOptions {
  /**
   * The turn's fence (./fence.ts): its lease, attached late too (a claim that failed open and landed after
   * all), and whether this copy may still write. Every write, step and recorded part of the turn asks it.
   */
  fence: TurnFence;
  /** A WebClient whose every request passes `fence.check()` right before it leaves. */
  clientFor: (fence: TurnFence) => WebClient;
  /** The copy's own client (not fenced), for the note after a turn has ended. */
  plain: WebClient;
  /** Whether Slack's window for a method is closed now. */
  closed: (method: string) => boolean;
  copy: { role: CopyRole; instance: string };
  log: Logger;
  /** Where ctx.step keeps its results; without it every step runs on every run. */
  steps?: TurnSteps | undefined;
  /** The turn's key in the store (its primary claim key): steps are kept under it, whichever copy runs the turn. */
  key?: string | undefined;
  botToken?: string | undefined;
  /** Channels where Slack refused a stream as unsupported: one set per copy, kept across its turns. */
  noStream?: Set<string> | undefined;
  /** Turns of a thread run one at a time (lib/conversation): an open message of this app after this turn's message is this turn's. */
  ordered?: boolean | undefined;
  /** A newer message of the thread interrupts this turn (the bot's concurrency is `interrupt`): what it wrote is closed and kept. */
  interruptible?: boolean | undefined;
  /** The bot's `taskDisplayMode`: its streams send `chunks` from the first call, shown so (a turn's `ctx.taskDisplayMode` overrides it). */
  taskDisplayMode?: TaskDisplayMode | undefined;
  /** The bot's own words for the notes (its `notes` export); autohub's for the rest. */
  notes?: Partial<TurnNotes> | undefined;
  /** The longest answer shown (AUTOHUB_MAX_REPLY_CHARS); past it the answer is cut, with a note. @default DEFAULT_MAX_REPLY_CHARS */
  maxReplyChars?: number | undefined;
  now?: () => number;
  /** Slack's AI-app surface (the thinking status, assistant threads' context and title); without it, the default status. */
  ai?: TurnAi | undefined;
  /** Where ctx.ask keeps a parked turn's place (lib/ask); without it ctx.ask throws. */
  records?: Pick<Records, 'note'> & Pick<Lists, 'push' | 'range'>;
  /** A question this copy posted: its deadline watched from now (lib/ask/watch.ts). */
  parked?: ((qid: string, deadline: number) => void) | undefined;
}

export class TurnHandle {
  #client: WebClient | undefined;
  readonly #fence: TurnFence;
  #target: { channel: string; threadTs: string; eventId: string } | undefined;
  readonly #now: () => number;

  constructor(private readonly o: TurnHandleOptions) {
    this.#now = o.now ?? Date.now;
    this.#fence = o.fence;
  }

  /** The turn's client: every write asks the fence right before it leaves. */
  get client(): WebClient {
    this.#client ??= this.o.clientFor(this.#fence);
    return this.#client;
  }

  #outcome: RunOutcome | undefined;

  /** What the run came to (undefined: nothing to say, or not over): TurnEnds writes it to the lease. */
  get outcome(): RunOutcome | undefined {
    return this.#outcome;
  }

  /** The run's end is recorded: nothing more is written (the fence refuses it, as after the lease's finish, which follows when the listener returns). */
  #ended(outcome: RunOutcome): void {
    this.#outcome = outcome;
    this.#fence.end();
  }
  /** The reply's writer while the turn writes: a turn cut off past its deadline has its open message closed. */
  #writer: ReplyWriter | undefined;

  /** The turn's deadline passed: `ctx.signal` aborts with `reason` (a TurnDeadlineError); its writes still leave, for its grace. */
  expire(reason: Error): void {
    this.#fence.stop(reason);
  }

  #interrupted: Error | undefined;

  /**
   * A newer message of the thread came (`concurrency: 'interrupt'`, lib/conversation): `ctx.signal`
   * aborts with `reason` (a TurnInterruptedError); the reply stops where it is, closed as
   * interrupted and kept as this turn's answer; the turn ends answered (never retried).
   */
  interrupt(reason: Error): void {
    if (!this.o.interruptible || this.signal.aborted) return;
    this.#interrupted = reason;
    this.#fence.stop(reason);
  }

  /** The grace is over too: no write of this turn leaves from now on, and a message it left streaming is closed as interrupted. */
  async cutOff(reason: string): Promise<void> {
    this.#fence.bar(`cut off: ${reason}`);
    const open = this.#writer?.open;
    const target = this.#target;
    if (open && target) await this.o.plain.chat.stopStream({ channel: target.channel, ts: open, markdown_text: this.note('cutOff') });
  }

  /** Aborts when this copy no longer owns the turn (or the turn is stopped): the turn's `ctx.signal`, the fence's. */
  get signal(): AbortSignal {
    return this.#fence.signal;
  }

  /** Answer a message: the whole reply protocol around `takeTurn`. */
  async answer(
    args: { event: MessageEvent; body: EnvelopeFields; context: { botUserId?: string; botId?: string; botToken?: string } },
    takeTurn: TakeTurn,
  ): Promise<void> {
    const { event, body, context } = args;
    const { log } = this.o;
    const request = turnRequest(event, body, { copy: this.o.copy, botUserId: context.botUserId, botToken: context.botToken ?? this.o.botToken });
    const me: BotIdentity = { appId: body.api_app_id, botId: context.botId, botUserId: context.botUserId };
    // A schedule's turn answers at the top level (no thread): its target's threadTs is empty.
    const topLevel = request.via === 'schedule';
    const target = { channel: event.channel, threadTs: topLevel ? '' : threadOf(event), eventId: request.eventId };
    this.#target = target;
    const lease = this.#fence.lease;
    const client = this.client;
    let writer: ReplyWriter | undefined;
    const ai = new AiTurn(this.o.ai, { client, plain: this.o.plain, log });
    try {
      if (mayBeAnswered(lease, body)) {
        // A taken-over turn, or a retry after an ambiguous failure, may have been answered already
        // (Slack posts cannot be fenced): the thread is read before the turn runs, so a paid model call is not made twice.
        const thread = topLevel
          ? await checkTopLevel(client, target, event.ts)
          : await checkThread(client, target, me, event.thread_ts === undefined, this.o.ordered ? { after: event.ts } : undefined);
        if (thread.reply) {
          this.#ended({ kind: 'already-answered', ts: thread.reply });
          log.info('turn.already_replied', { eventId: request.eventId, ts: thread.reply });
          return;
        }
        const found = thread.parts ?? (thread.orphan ? [thread.orphan] : undefined);
        if (found && lease && lease.parts.length === 0) {
          if (thread.orphan) log.info('turn.orphan_stream', { eventId: request.eventId, ts: thread.orphan });
          await lease.recordParts(found);
        }
      }
      // A status shows under a thread: a top-level answer has none.
      if (!topLevel) await ai.begin(request, target, event.thread_ts !== undefined);
      const started = this.#now();
      // A turn resumed by an answer (lib/ask): its earlier runs' steps, and the answers so far.
      const resume = resumeOf(body as { autohub_resume?: unknown });
      const steps = await this.#steps(lease, request.eventId, resume?.keys);
      let asked = 0;
      /** The question this run parked on: the run is over whatever the bot does after (a bot that caught the throw). */
      let parkedOn: string | undefined;
      const ask = async (question: AskQuestion, sleeping = false): Promise<AskAnswer> => {
        const index = asked++;
        const answered = resume?.answers[index];
        if (answered) return answered;
        const key = this.o.key ?? lease?.key;
        if (!this.o.records || !key) throw new Error('ctx.ask needs the turn to be claimed in the store (it was not: the store did not answer)');
        const { qid, deadline } = await parkTurn({
          question,
          index,
          request,
          target,
          envelope: body as Record<string, unknown>,
          resume: resume ?? { eventId: request.eventId, answers: [], keys: [], type: event.type ?? 'app_mention' },
          key,
          client,
          records: this.o.records,
          now: this.#now(),
          sleeping,
        });
        this.o.parked?.(qid, deadline);
        parkedOn = qid;
        throw new TurnParkedError(qid);
      };
      // The turn's tasks: yielded task chunks and steps shown as tasks (a kept step shows complete, not run again).
      const tasks = new TaskBoard();
      const step: TurnContext['step'] = async (name, fn, options) => {
        const run = () => (steps ? steps.run(name, fn) : Promise.resolve(fn({ idempotencyKey: stepKey(request.eventId, name) })));
        if (!options?.task) return run();
        tasks.update(stepTask(name, options.task, 'in_progress'));
        try {
          const result = await run();
          tasks.update(stepTask(name, options.task, 'complete'));
          return result;
        } catch (error) {
          tasks.update(stepTask(name, options.task, 'error'));
          throw error;
        }
      };
      const ctx: TurnContext = {
        signal: this.signal,
        // With the answers written while this turn waited for its conversation (lib/conversation).
        history: async () =>
          topLevel
            ? []
            : readHistory(client, { channel: target.channel, threadTs: target.threadTs, beforeTs: event.ts, answersAfter: request.eventId, ...identity(me) }),
        step,
        ask: (question) => ask(question),
        // A sleep is a wait with no question, resumed by its deadline alone (lib/ask/watch.ts), on whichever copy is up.
        sleep: async (ms) => {
          if (!(Number.isInteger(ms) && ms >= 1000 && ms <= MAX_ASK_TIMEOUT_MS))
            throw new TypeError(`ctx.sleep takes whole ms from 1000 to ${MAX_ASK_TIMEOUT_MS} (23 hours)`);
          await ask({ text: '', choices: [], timeoutMs: ms }, true);
        },
        client,
        log,
      };
      // A copy that lost the turn before it began (frozen between its ack and here, woken to find it taken
      // over) does not begin it: the signal would be aborted already, and a bot waiting for its 'abort' event would wait forever.
      this.signal.throwIfAborted();
      const reply = replyShape(await takeTurn(request, ctx));
      // The bot caught ctx.ask's throw and went on: the turn is parked all the same, and what it returned is not
      // posted (the answer's run writes the reply).
      if (parkedOn) throw new TurnParkedError(parkedOn);
      // Interrupted before it wrote anything (a whole answer returned anyway is not posted: the newer message is answered).
      if (this.#interrupted && (typeof reply?.text === 'string' || !reply)) {
        await this.#endInterrupted(request.eventId, null, ai);
        return;
      }
      if (!reply && (lease?.parts.length ?? 0) === 0) {
        ai.nothingPosted();
        log.info('turn.no_reply', { eventId: request.eventId });
        return;
      }
      const max = this.o.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
      const text = capReply(reply?.text ?? '', max, () => log.info('turn.answer_cut', { eventId: request.eventId, max }));
      const late = request.late ? `${request.schedule ? scheduleLateNote(request.schedule.slot) : this.note('late')}\n` : '';
      const moduleMode = this.o.taskDisplayMode;
      writer = new ReplyWriter(client, { ...target, recipientUser: event.user, recipientTeam: event.user_team ?? event.team ?? body.team_id }, this.#fence, {
        closed: this.o.closed,
        now: this.#now,
        tasks,
        // Read when the stream starts (after the turn's first yield): the turn may set it for itself until then.
        get taskDisplayMode() {
          return displayModeOf(ctx.taskDisplayMode, moduleMode);
        },
        ...(this.o.noStream ? { noStream: this.o.noStream } : {}),
      });
      this.#writer = writer;
      if (typeof text === 'string') ai.writing(text);
      const stream = typeof text === 'string' || !this.o.interruptible ? text : untilInterrupted(text, this.signal, tasks, this.note('cutOff'));
      const outcome: WriteOutcome =
        typeof stream === 'string'
          ? await writer.writeText(late + stream, reply?.blocks)
          : await writer.write(ai.watch(late ? prepend(late, stream) : stream), reply?.blocks);
      if (this.#interrupted) log.info('turn.interrupted', { eventId: request.eventId, ts: outcome.ts, parts: outcome.parts.length });
      const ms = this.#now() - started;
      if (outcome.how === 'stopped') {
        // The person pressed Stop: answered as far as it got. The model's call is stood down.
        this.#fence.stop(new Error('stopped by the person'));
        log.info('turn.stopped_by_user', { eventId: request.eventId, ts: outcome.ts, parts: outcome.parts.length });
      }
      await ai.answered(outcome.ts);
      this.#ended({ kind: 'answered', ts: outcome.ts ?? null, record: { how: outcome.how, chunks: outcome.chunks, ms } });
      log.info('turn.replied', {
        eventId: request.eventId,
        via: request.via,
        ts: outcome.ts,
        parts: outcome.parts.length,
        takeover: lease?.previousState,
        attempt: lease?.attempts,
        stream: outcome.how,
        chunks: outcome.chunks,
        ms,
      });
    } catch (error) {
      // Parked on a question (lib/ask): the question is posted and kept; the run ends here (its lease is finished when the listener returns).
      if (error instanceof TurnParkedError) {
        ai.nothingPosted();
        this.#ended({ kind: 'parked', qid: error.qid });
        log.info('turn.parked', { eventId: request.eventId, question: error.qid });
        return;
      }
      if (isLeaseLost(error) || this.#fence.lease?.signal.aborted || this.#fence.barred) {
        this.#ended({ kind: 'abandoned' });
        log.warn('turn.abandoned', { eventId: request.eventId, reason: 'this copy no longer owns the turn' });
        return;
      }
      // The turn gave up on its interrupt (it threw ctx.signal's reason): what it wrote is closed, kept as its answer.
      if (this.#interrupted && isTurnInterrupted(this.signal.reason)) {
        const open = writer?.open;
        if (open) await writer?.interrupt(this.note('cutOff'));
        await this.#endInterrupted(request.eventId, open ?? null, ai);
        return;
      }
      // Nothing of this run in the thread: the status goes (the retry, or the dead letter's note, follows).
      if (!writer?.open) ai.nothingPosted();
      // No message is left streaming: the next run (or the dead letter's note) completes it.
      // Its tasks end as `error` (this run gave up on them).
      if (writer?.open) await writer.interrupt(this.note('interrupted')).catch(() => undefined);
      throw error;
    } finally {
      ai.end();
    }
  }

  /** An interrupted turn ends answered as far as it got (`ts`: its open message, closed; null: nothing written). */
  async #endInterrupted(eventId: string, ts: string | null, ai: AiTurn): Promise<void> {
    if (ts === null) ai.nothingPosted();
    this.#ended({ kind: 'interrupted', ts });
    this.o.log.info('turn.interrupted', { eventId, ts });
  }

  /** A turn that ran before (a retry, a takeover) reads what its steps kept, in one store command; a first run reads nothing. */
  async #steps(lease: FencedLease | undefined, eventId: string, before: readonly string[] = []): Promise<StepBook | undefined> {
    const store = this.o.steps;
    const key = this.o.key ?? lease?.key;
    if (!store || !key) return undefined;
    const fenced = {
      eventId,
      onUnkept: (name: string) => this.o.log.warn('turn.step_unkept', { eventId, step: name }),
      // A step is fenced as a write is: checked right before fn runs, kept only under the lease's token.
      fence: this.#fence,
    };
    if (before.length > 0) {
      // A resumed turn: the steps its earlier runs kept (each under its own claim), then its own, in one book.
      const kept: Record<string, string> = {};
      for (const k of lease?.previousState !== undefined ? [...before, key] : before) {
        const found = await store.loadSteps(k);
        if (found === undefined) throw new StoreUnavailableError('steps load');
        Object.assign(kept, found);
      }
      return new StepBook({ store, key, kept, ...fenced });
    }
    if (lease?.previousState !== undefined) return StepBook.load(store, key, fenced);
    return new StepBook({ store, key, kept: undefined, ...fenced });
  }

  /**
   * The turn was skipped past its conversation's bound (lib/conversation): its reply is a short note,
   * SKIPPED_NOTE, tagged final so a takeover's thread check finds it answered, and the turn ends
   * with it. A run that may have been answered (taken over, or a retry after an ambiguous failure) reads
   * the thread first: its owner may have posted the note and died before it finished the turn (a post
   * cannot be fenced). Resolves with the reply's ts.
   */
  async answerSkipped(body: Record<string, unknown>): Promise<string | null> {
    return this.answerNote(body, this.note('skipped'));
  }

  /**
   * The turn's whole reply is one short note (`text`), tagged final so a takeover's thread check finds
   * it answered, and the turn ends with it; read first, as answerSkipped's, when the run may
   * have been answered. Resolves with the reply's ts.
   */
  async answerNote(body: Record<string, unknown>, text: string): Promise<string | null> {
    const event = body.event as { channel: string; ts: string; thread_ts?: string };
    const target = { channel: event.channel, threadTs: threadOf(event), eventId: String(body.event_id ?? '') };
    this.#target = target;
    const lease = this.#fence.lease;
    let ts = mayBeAnswered(lease, body) ? ((await checkThread(this.client, target, {})).reply ?? null) : null;
    if (ts === null) {
      const posted = await this.client.chat.postMessage({
        channel: target.channel,
        thread_ts: target.threadTs,
        text,
        metadata: partMetadata(target.eventId, 0, true),
      });
      ts = posted.ts ?? null;
    }
    this.#ended({ kind: 'answered', ts });
    return ts;
  }

  /**
   * The turn threw (or was cut off past its deadline, `expired`): its end.
   * Lost to another copy: it stands down, nothing is retried here. Else its
   * failure is classified and `fail` (TurnEnds', through the lease the turn
   * holds, or for a claim that failed open one confirmed or claimed now)
   * hands it back for a retry or dead-letters it; the person hears once when
   * the retry is for long, and when it is dead. Without a lease the runner keeps it.
   */
  async failed(
    error: unknown,
    o: { expired: boolean; fields: Record<string, unknown>; fail: (failure: TurnFailure) => Promise<FailReply | undefined> },
  ): Promise<TurnEnd> {
    const { log } = this.o;
    if (isLeaseLost(error) || this.#fence.lease?.lost) {
      log.warn('turn.abandoned', { ...o.fields, reason: 'this copy no longer owns the turn' });
      return { kind: 'over' };
    }
    // Past its deadline, whatever it threw in its grace, the turn is over: another run would hang again.
    const failure = classifyTurnFailure(o.expired && !(error instanceof TurnDeadlineError) ? new TurnDeadlineError('the retry window is over') : error);
    const own = rootError(error);
    const failed = await o.fail(failure);
    if (!failed) {
      log.error('turn.failed', { ...o.fields, failure: failure.kind, reason: failure.reason, error: own });
      if (o.expired) void this.dead();
      return { kind: 'unleased', failure };
    }
    const { reply, retryInMs } = failed;
    log.warn('turn.failed', { ...o.fields, failure: failure.kind, reason: failure.reason, outcome: reply, retryInMs, error: own });
    if (reply === 'retry' && retryInMs !== undefined) {
      if (!failure.free) void this.retrying(failed.attempts, retryInMs);
      return { kind: 'retry', retryInMs };
    }
    if (reply === 'dead') {
      void this.dead();
      return { kind: 'dead', key: failed.key, attempts: failed.attempts, reason: failure.reason };
    }
    return { kind: 'over' };
  }

  /** The turn became a dead letter: tell the person, once (only the copy whose store call made it so gets here). */
  async dead(): Promise<void> {
    await this.#note(this.note('dead'), 'turn.dead_note_failed');
  }

  /**
   * The turn was handed back for another run: the person hears, once, when it
   * is for long (its second failure, or a first retry `RETRYING_NOTE_AFTER_MS`
   * away). A note carries the turn's metadata as a note: never taken for the reply.
   */
  async retrying(attempts: number, retryInMs: number): Promise<void> {
    const once = attempts === 2 || (attempts === 1 && retryInMs >= RETRYING_NOTE_AFTER_MS);
    if (once) await this.#note(this.note('retrying'), 'turn.retry_note_failed');
  }

  /** A note in the bot's words (its `notes`), else autohub's; the ones added to a message open with a blank line. */
  note(name: keyof TurnNotes): string {
    const own = this.o.notes?.[name];
    if (own === undefined) return DEFAULT_NOTES[name];
    return name === 'interrupted' || name === 'cutOff' ? `\n\n${own}` : own;
  }

  async #note(text: string, failed: string): Promise<void> {
    const target = this.#target;
    const { log } = this.o;
    if (!target) return;
    await this.o.plain.chat
      .postMessage({ channel: target.channel, ...(target.threadTs ? { thread_ts: target.threadTs } : {}), text, metadata: noteMetadata(target.eventId) })
      .catch((error: unknown) => log.warn(failed, { eventId: target.eventId, error }));
  }
}

function identity(me: BotIdentity): { botUserId?: string; botId?: string; appId?: string } {
  return {
    ...(me.botUserId ? { botUserId: me.botUserId } : {}),
    ...(me.botId ? { botId: me.botId } : {}),
    ...(me.appId ? { appId: me.appId } : {}),
  };
}

async function* prepend<T>(first: string, rest: AsyncIterable<T>): AsyncIterable<string | T> {
  yield first;
  yield* rest;
}

/**
 * The bot's stream until an interrupt (`concurrency: 'interrupt'`): then the
 * bot is no longer read (even one that ignores ctx.signal), its open tasks
 * end as `error`, and the message ends with CUT_OFF_NOTE when anything was
 * written, so the writer closes it as a whole answer, with its metadata.
 * Any other abort (the lease lost, the deadline) is the runner's, as before.
 */
async function* untilInterrupted<T>(source: AsyncIterable<T>, signal: AbortSignal, tasks: TaskBoard, cutOff = CUT_OFF_NOTE): AsyncIterable<T | string> {
  const it = source[Symbol.asyncIterator]();
  const interrupted = new Promise<'interrupted'>((resolve) => {
    const check = () => {
      if (isTurnInterrupted(signal.reason)) resolve('interrupted');
    };
    if (signal.aborted) check();
    else signal.addEventListener('abort', check, { once: true });
  });
  let wrote = tasks.any;
  for (;;) {
    const pending = it.next();
    // Left unread after an interrupt: its end (or the bot's throw of the reason) is nobody's error.
    pending.catch(() => undefined);
    const next = await Promise.race([pending, interrupted]).catch((error: unknown) => {
      if (isTurnInterrupted(signal.reason)) return 'interrupted' as const;
      throw error;
    });
    if (next === 'interrupted') {
      void Promise.resolve(it.return?.()).catch(() => undefined);
      tasks.close('error');
      if (wrote || tasks.any) yield cutOff;
      return;
    }
    if (next.done) return;
    wrote = true;
    yield next.value;
  }
}
