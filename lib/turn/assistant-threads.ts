/**
 * Assistant threads (Slack's split view), kept in the shared store so the
 * copies agree: the thread's latest context (what the person is looking at),
 * sealed like every stored text, newest by its event's own time (two changes
 * handled out of order, on one copy or two, keep the later), and two
 * once-marks, so its suggested prompts and its title are set once whichever
 * copy, and however many deliveries, see the thread. And the mark a feedback
 * click is heard under, so `onFeedback` runs once for it across the copies.
 *
 * Store cost: `assistant_thread_started` one lock (the prompts' mark) and one
 * write (the context, with its order); `assistant_thread_context_changed` one
 * write; a turn in a DM thread one read (its context: none outside an
 * assistant thread), and a turn in an assistant thread one lock more until
 * this copy knows the thread is titled; a feedback click one lock (more only
 * when the store does not answer it). The Agent messaging experience:
 * `app_home_opened` (tab `messages`) one write when it carries a context and
 * one lock when the bot has prompts; `app_context_changed` one write; a turn
 * in a DM outside a thread one read (the person's context). A mention in a
 * channel costs nothing.
 */
import type { ClaimKind, Sealer, SharedStore } from '../store/index.js';
import {
  CLAIM_TTL_SECONDS,
  STORE_LIMITS,
  agentContextKey,
  agentOpenedKey,
  assistantOnceKey,
  assistantThreadKey,
  feedbackHeardKey,
  isSealed,
} from '../store/index.js';
import type { ThreadContext } from './types.js';

/** What the threads need of the store (one command each). */
export type ThreadStore = Pick<SharedStore, 'read' | 'noteNewest' | 'lock'>;

/** Digits of an order: a ts's seconds and its microseconds, each at a fixed width, so the strings sort as the times do. */
const SECONDS_DIGITS = 15;
const FRACTION_DIGITS = 6;

/**
 * The order of an assistant event, from its own time: the event's `event_ts`
 * (`"1700000000.123456"`), else the envelope's `event_time` (whole seconds).
 * Digits of one width (seconds, then microseconds), so the store compares
 * them as strings. '' when neither is readable: such an event is older than
 * any with a time. Pure.
 */
export function orderOf(eventTs: unknown, eventTime?: unknown): string {
  const ts = typeof eventTs === 'string' ? /^(\d{1,15})(?:\.(\d{1,6})\d*)?$/.exec(eventTs) : null;
  if (ts) return ts[1]!.padStart(SECONDS_DIGITS, '0') + (ts[2] ?? '').padEnd(FRACTION_DIGITS, '0');
  if (typeof eventTime === 'number' && Number.isSafeInteger(eventTime) && eventTime >= 0) {
    return String(eventTime).padStart(SECONDS_DIGITS, '0') + '0'.repeat(FRACTION_DIGITS);
  }
  return '';
}

/** What the mark of a feedback click says: this delivery hears it, another one did, or the store would not say. */
export type ClickVerdict = 'first' | 'heard' | 'unsure';

/**
 * Whether this delivery runs `onFeedback`, from its mark and its claim: the
 * mark decides when the store answered it. When it did not, the claim
 * does: a claim that held is the one positive answer any copy got (the
 * other delivery was a duplicate, or failed open), so that copy hears the
 * click; one that failed open does not (the other copy may have run it:
 * heard once beats heard twice; missed only when every claim and mark of the
 * click went unanswered). Pure.
 */
export function hearsClick(verdict: ClickVerdict, claim: ClaimKind): boolean {
  if (verdict !== 'unsure') return verdict === 'first';
  return claim === 'claimed';
}

/**
 * How often a click's mark is asked for before the claim decides:
 * after the ack nobody waits, so a store slow under load gets
 * 4 tries (each bounded by the store's own deadline) and 250 + 500 + 1,000 ms between them.
 */
const CLICK_TRIES = 4;
const CLICK_BACKOFF_MS = 250;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The context of an `assistant_thread` object as Slack sends it (assistant_thread_started, _context_changed). */
export function contextOf(thread: { context?: { channel_id?: unknown; team_id?: unknown; enterprise_id?: unknown } } | undefined): ThreadContext {
  const c = thread?.context ?? {};
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return { channel: text(c.channel_id), team: text(c.team_id), enterprise: text(c.enterprise_id) };
}

/** One of `app_context_changed`'s entities (`@slack/types` 3.2 AppContextChangedEvent): what it names, and where. */
type ContextEntity = { type?: unknown; value?: unknown; team_id?: unknown; enterprise_id?: unknown };

/**
 * The context of the Agent messaging experience (`app_context_changed`'s `context`, also on `app_home_opened`):
 * its entities "ordered by relevance" (https://docs.slack.dev/reference/events/app_context_changed), so the
 * first that names a channel (a channel id, or a message's channel) is where the person is; an empty
 * context (`{}`) is none. Pure.
 */
export function agentContextOf(context: { entities?: unknown } | undefined): ThreadContext {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const entities = Array.isArray(context?.entities) ? (context.entities as ContextEntity[]) : [];
  for (const e of entities) {
    const channel =
      e?.type === 'slack#/types/channel_id'
        ? text(e.value)
        : e?.type === 'slack#/types/message_context'
          ? text((e.value as { channel_id?: unknown })?.channel_id)
          : undefined;
    if (channel) return { channel, team: text(e.team_id), enterprise: text(e.enterprise_id) };
  }
  const first = entities[0];
  return { channel: undefined, team: text(first?.team_id), enterprise: text(first?.enterprise_id) };
}

/** Threads this copy knows are titled: later turns in them ask the store nothing more. At most this many are remembered. */
const TITLED_KEPT = 10_000;

export class AssistantThreads {
  readonly #titled = new Set<string>();
  readonly #ttl = STORE_LIMITS.assistantThreadTtlSeconds;

  constructor(
    private readonly o: {
      store: ThreadStore;
      sealer?: Sealer | undefined;
      /** Between tries of a click's mark. @default setTimeout */
      sleep?: ((ms: number) => Promise<void>) | undefined;
      /** A holder for a click's mark, unique to the delivery. @default crypto.randomUUID */
      holder?: (() => string) | undefined;
    },
  ) {}

  /**
   * Keep the thread's context as of this event (its start, or a change),
   * unless the store holds one of a later event (`order`, from orderOf):
   * true kept, false a newer one is there, undefined the store did not answer.
   */
  async keep(channel: string, threadTs: string, context: ThreadContext, order: string): Promise<boolean | undefined> {
    return this.#keep(assistantThreadKey(channel, threadTs), context, order);
  }

  /** The Agent messaging experience: keep what `user` is looking at as of this event (`app_context_changed`, `app_home_opened`), as `keep` does. */
  async keepAgent(user: string, context: ThreadContext, order: string): Promise<boolean | undefined> {
    return this.#keep(agentContextKey(user), context, order);
  }

  async #keep(key: string, context: ThreadContext, order: string): Promise<boolean | undefined> {
    const json = JSON.stringify({ channel: context.channel ?? null, team: context.team ?? null, enterprise: context.enterprise ?? null });
    return this.o.store.noteNewest(key, this.o.sealer ? this.o.sealer.seal(json) : json, order, this.#ttl);
  }

  /**
   * Whether this delivery of a feedback click is the one that hears it,
   * across copies: the receiver's claim of the click's trigger_id fails open
   * when the store is slow (its deadline is the ack's), and then both copies
   * would run it. The mark is taken after the ack, by every delivery that
   * reached the listener, tried again while the store does not answer (the
   * same holder: a take whose answer was lost is still this one's). `unsure`
   * when it never answered: the claim decides then (hearsClick).
   */
  async firstClick(team: string | undefined, triggerId: string): Promise<ClickVerdict> {
    const holder = (this.o.holder ?? (() => crypto.randomUUID()))();
    const sleep = this.o.sleep ?? realSleep;
    const key = feedbackHeardKey(team, triggerId);
    for (let attempt = 1; ; attempt++) {
      const taken = await this.o.store.lock(key, CLAIM_TTL_SECONDS, holder).catch(() => undefined);
      if (taken !== undefined) return taken ? 'first' : 'heard';
      if (attempt >= CLICK_TRIES) return 'unsure';
      await sleep(CLICK_BACKOFF_MS * 2 ** (attempt - 1));
    }
  }

  /** The thread's latest context; undefined when it is no assistant thread the store knows, or the store could not answer. */
  async context(channel: string, threadTs: string): Promise<ThreadContext | undefined> {
    return this.#context(assistantThreadKey(channel, threadTs));
  }

  /** What `user` was last seen looking at in the Agent messaging experience; undefined when none is kept, or the store could not answer. */
  async agentContext(user: string): Promise<ThreadContext | undefined> {
    return this.#context(agentContextKey(user));
  }

  async #context(key: string): Promise<ThreadContext | undefined> {
    const raw = await this.o.store.read(key).catch(() => undefined);
    if (typeof raw !== 'string') return undefined;
    const plain = isSealed(raw) ? this.o.sealer?.open(raw) : raw;
    if (plain === undefined) return undefined;
    try {
      const c = JSON.parse(plain) as { channel?: unknown; team?: unknown; enterprise?: unknown };
      const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
      return { channel: text(c.channel), team: text(c.team), enterprise: text(c.enterprise) };
    } catch {
      return undefined;
    }
  }

  /**
   * True for one event of the thread's start, across copies: the one whose
   * take landed first (a takeover of that same event takes it again). False
   * for any other, and when the store cannot answer (prompts unset beat prompts twice).
   */
  async firstStart(channel: string, threadTs: string, eventId: string): Promise<boolean> {
    return (await this.o.store.lock(assistantOnceKey('prompts', channel, threadTs), this.#ttl, eventId).catch(() => undefined)) === true;
  }

  /**
   * True for one delivery of a DM's opening (`app_home_opened`, tab `messages`), across copies: the one whose
   * take landed first; kept as long as a claim (the opening's redeliveries), not the thread's 30 days: a DM is
   * opened often. False for any other, and when the store cannot answer (prompts unset beat prompts twice).
   */
  async firstOpen(channel: string, eventTs: string, eventId: string): Promise<boolean> {
    return (await this.o.store.lock(agentOpenedKey(channel, eventTs), CLAIM_TTL_SECONDS, eventId).catch(() => undefined)) === true;
  }

  /**
   * True for the one delivery that greets a DM of the agent view, across copies, for the thread's life
   * (30 days): a DM is opened often, and greeted once. False for any other, and when the store cannot answer.
   */
  async firstGreeting(channel: string, eventId: string): Promise<boolean> {
    return (await this.o.store.lock(assistantOnceKey('greeting', channel, 'dm'), this.#ttl, eventId).catch(() => undefined)) === true;
  }

  /** True for the one turn that titles the thread (its first answer), across copies. */
  async firstTitle(channel: string, threadTs: string, eventId: string): Promise<boolean> {
    const thread = `${channel}:${threadTs}`;
    if (this.#titled.has(thread)) return false;
    const taken = await this.o.store.lock(assistantOnceKey('title', channel, threadTs), this.#ttl, eventId).catch(() => undefined);
    if (taken === false) this.#remember(thread);
    return taken === true;
  }

  /** This copy titled the thread: later turns in it ask nothing. */
  titled(channel: string, threadTs: string): void {
    this.#remember(`${channel}:${threadTs}`);
  }

  #remember(thread: string): void {
    if (this.#titled.size >= TITLED_KEPT) this.#titled.clear();
    this.#titled.add(thread);
  }
}
