/**
 * Assistant threads (Slack's split view), kept in the shared store so the
 * copies agree: the thread's latest context (what the person is looking at),
 * sealed like every stored text, and two once-marks, so its suggested
 * prompts and its title are set once whichever copy, and however many
 * deliveries, see the thread.
 *
 * Store cost: `assistant_thread_started` one lock (the prompts' mark) and one
 * write (the context); `assistant_thread_context_changed` one write; a turn in
 * a DM thread one read (its context: none outside an assistant thread), and a
 * turn in an assistant thread one lock more until this copy knows the thread
 * is titled. A mention in a channel and a DM outside a thread cost nothing.
 */
import type { Sealer, SharedStore } from '../store/index.js';
import { STORE_LIMITS, assistantOnceKey, assistantThreadKey, isSealed } from '../store/index.js';
import type { ThreadContext } from './types.js';

/** What the threads need of the store (one command each). */
export type ThreadStore = Pick<SharedStore, 'read' | 'note' | 'lock'>;

/** The context of an `assistant_thread` object as Slack sends it (assistant_thread_started, _context_changed). */
export function contextOf(thread: { context?: { channel_id?: unknown; team_id?: unknown; enterprise_id?: unknown } } | undefined): ThreadContext {
  const c = thread?.context ?? {};
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return { channel: text(c.channel_id), team: text(c.team_id), enterprise: text(c.enterprise_id) };
}

/** Threads this copy knows are titled: later turns in them ask the store nothing more. At most this many are remembered. */
const TITLED_KEPT = 10_000;

export class AssistantThreads {
  readonly #titled = new Set<string>();
  readonly #ttl = STORE_LIMITS.assistantThreadTtlSeconds;

  constructor(private readonly o: { store: ThreadStore; sealer?: Sealer | undefined }) {}

  /** Keep the thread's context as of this event (its start, or a change). */
  async keep(channel: string, threadTs: string, context: ThreadContext): Promise<void> {
    const json = JSON.stringify({ channel: context.channel ?? null, team: context.team ?? null, enterprise: context.enterprise ?? null });
    await this.o.store.note(assistantThreadKey(channel, threadTs), this.o.sealer ? this.o.sealer.seal(json) : json, this.#ttl);
  }

  /** The thread's latest context; undefined when it is no assistant thread the store knows, or the store could not answer. */
  async context(channel: string, threadTs: string): Promise<ThreadContext | undefined> {
    const raw = await this.o.store.read(assistantThreadKey(channel, threadTs)).catch(() => undefined);
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
