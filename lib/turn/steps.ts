/**
 * `ctx.step(name, fn)`: a part of a turn that runs once per turn, whatever
 * happens to the copy running it. Its JSON result is kept with the turn in
 * the shared store (sealed, like the turn's body), so a retry or a takeover
 * gets the kept result back instead of calling `fn` again: a ticket is filed
 * once, a finished model call is not paid for twice.
 *
 * A step is fenced like a write (docs/steps.md): the turn's lease is
 * confirmed right before `fn` runs, after whatever the turn waited on, so a
 * copy that lost the turn (frozen, then woken after a takeover) never calls
 * `fn`; and its result is kept only under the lease's token, so such a copy
 * never overwrites what the taker-over kept.
 *
 * Cost: one store command per step kept (the check before `fn` is free while
 * the lease is provably held, one commit otherwise, as a write's); a retry or
 * a takeover loads every kept step of its turn in one (`StepBook.load`). A
 * first run loads nothing. At most `STEPS_PER_TURN` steps a turn.
 *
 * What it cannot do: a copy that dies *inside* `fn`, after the side effect
 * and before its result is kept, leaves nothing kept, and the next run calls
 * `fn` again; so does a copy frozen after the check and before `fn`'s side
 * effect leaves, woken after a takeover. Make such a side effect idempotent
 * where the other side allows: `fn` is handed the step's idempotency key
 * (`StepRun.idempotencyKey`), the same on every run of the turn.
 */
import { createHash } from 'node:crypto';
import { LeaseLostError, StepLimitError, StoreUnavailableError } from '../errors/index.js';
import { STORE_LIMITS, type TurnSteps } from '../store/index.js';

/** What a step's `fn` is handed: the same on every run of the turn, on any copy. */
export interface StepRun {
  /**
   * The step's idempotency key: derived from the turn's event id (Slack's
   * `event_id`, unique across workspaces) and the step's name, so a retry, a
   * takeover and a woken copy all send the same one. Hand it to the other
   * side as its idempotency key (Stripe's `Idempotency-Key` header, an
   * `external_id`, a `client_request_id`): it makes the run the fence cannot
   * stop (a copy frozen after the check, one that dies inside `fn`) a no-op.
   * 40 characters, `ah_` and hex; no event id or name in clear.
   */
  idempotencyKey: string;
}

/** The idempotency key of step `name` of the turn of `eventId` (StepRun.idempotencyKey). */
export function stepKey(eventId: string, name: string): string {
  return `ah_${createHash('sha256').update(`autohub-step\0${eventId}\0${name}`).digest('hex').slice(0, 37)}`;
}

/** The most steps one turn keeps (each a store command). */
export const STEPS_PER_TURN = STORE_LIMITS.stepsPerTurn;

export interface StepBookOptions {
  store: TurnSteps;
  /** The turn's key in the store (its claim key). */
  key: string;
  /** The steps already kept, preloaded on a takeover or a retry; undefined on a first run (nothing can be kept yet). */
  kept: Record<string, string> | undefined;
  /** Told when a result could not be kept (the store did not answer): the step would run again on a retry. */
  onUnkept?: (name: string) => void;
  /**
   * The turn's fence (./fence.ts), asked right before `fn`: resolves while this
   * copy holds the turn, throws LeaseLostError when it does not
   * (StoreUnavailableError when the store cannot say). A result is kept only
   * under its `token` (a claim confirmed late gets one mid-turn; undefined: a
   * turn whose claim failed open), and a result the store refused because
   * another copy holds the turn bars it. Absent: steps run unfenced (a turn with no store).
   */
  fence?: StepFence;
  /** The turn's event id: with a step's name, its idempotency key (StepRun), the same as a turn without a store gives its steps. */
  eventId: string;
  /** @default STEPS_PER_TURN */
  limit?: number;
}

/** What the step book asks of the turn's fence (TurnFence is one). */
export interface StepFence {
  check(at: string): Promise<void>;
  readonly token: number | undefined;
  bar(reason: string): void;
}

export class StepBook {
  readonly #store: TurnSteps;
  readonly #key: string;
  readonly #kept: Map<string, string>;
  readonly #used = new Set<string>();
  readonly #o: StepBookOptions;

  constructor(o: StepBookOptions) {
    this.#store = o.store;
    this.#key = o.key;
    this.#kept = new Map(Object.entries(o.kept ?? {}));
    this.#o = o;
  }

  /**
   * The book of a turn that has run before (a retry, a takeover), its kept
   * steps read in one store command. Throws StoreUnavailableError (a
   * transient failure: the turn is retried) when the store cannot say what
   * was kept: running the steps blind could repeat their side effects.
   */
  static async load(store: TurnSteps, key: string, options: Omit<StepBookOptions, 'store' | 'key' | 'kept'>): Promise<StepBook> {
    const kept = await store.loadSteps(key);
    if (kept === undefined) throw new StoreUnavailableError('steps load');
    return new StepBook({ store, key, kept, ...options });
  }

  /** Names of the steps kept so far (loaded or run here). */
  get kept(): string[] {
    return [...this.#kept.keys()];
  }

  async run<T>(name: string, fn: (step: StepRun) => Promise<T> | T): Promise<T> {
    if (typeof name !== 'string' || name.length === 0) throw new TypeError('ctx.step needs a name: a non-empty string, the same on every run of the turn');
    if (this.#used.has(name)) {
      throw new Error(`ctx.step("${name}") ran twice in one turn: give each step its own name (a loop can add its index: "search-1", "search-2")`);
    }
    const limit = this.#o.limit ?? STEPS_PER_TURN;
    if (this.#used.size >= limit) throw new StepLimitError(name, limit);
    this.#used.add(name);
    const held = this.#kept.get(name);
    if (held !== undefined) return decode<T>(held);
    let result: T;
    try {
      // After whatever the turn waited on: a copy that lost the turn meanwhile stops here, before the side effect.
      await this.#o.fence?.check('step');
      result = await fn({ idempotencyKey: stepKey(this.#o.eventId, name) });
    } catch (error) {
      // A step that threw kept nothing: the turn may try it again under the same name.
      this.#used.delete(name);
      throw error;
    }
    const json = encode(name, result);
    const kept = await this.#store.keepStep(this.#key, name, json, this.#o.fence?.token);
    if (kept === 'ok') this.#kept.set(name, json);
    else if (kept === 'lost') {
      // Another copy took the turn while fn ran: its result (kept or to come) is the turn's, not this one.
      this.#o.fence?.bar(`step "${name}": another copy holds the turn`);
      throw new LeaseLostError(`step "${name}"`);
    } else this.#o.onUnkept?.(name);
    return result;
  }
}

/**
 * A result as kept: `{"v": <JSON>}`, or `{}` for a step that returns nothing,
 * so `undefined` comes back as `undefined`.
 */
function encode(name: string, value: unknown): string {
  const where = unjsonable(value, '', new Set());
  if (where !== undefined) {
    throw new TypeError(
      `ctx.step("${name}") returned ${where.what}${where.path ? ` at ${where.path}` : ''}, which JSON cannot keep: return plain data (strings, numbers, booleans, null, arrays and plain objects)`,
    );
  }
  return value === undefined ? '{}' : JSON.stringify({ v: value });
}

function decode<T>(json: string): T {
  return (JSON.parse(json) as { v?: T }).v as T;
}

/** The first part of `value` that would not come back from JSON as it went in; undefined when all would. */
function unjsonable(value: unknown, path: string, seen: Set<object>): { what: string; path: string } | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : { what: String(value), path };
    case 'bigint':
      return { what: 'a bigint', path };
    case 'function':
      return { what: 'a function', path };
    case 'symbol':
      return { what: 'a symbol', path };
  }
  if (value === null) return undefined;
  const object = value as object;
  if (seen.has(object)) return { what: 'a circular reference', path };
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      for (const [i, item] of object.entries()) {
        if (item === undefined) return { what: 'undefined in an array', path: `${path}[${i}]` };
        const bad = unjsonable(item, `${path}[${i}]`, seen);
        if (bad) return bad;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(object) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      const kind = (object as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      return { what: `a ${kind}`, path };
    }
    for (const [k, item] of Object.entries(object)) {
      const bad = unjsonable(item, `${path}.${k}`, seen);
      if (bad) return bad;
    }
    return undefined;
  } finally {
    seen.delete(object);
  }
}
