/**
 * What each part of autohub needs from the shared store, one interface per
 * role, so every consumer depends on the smallest slice it uses. Two
 * adapters implement them all: Upstash (shared by the copies) and in-process
 * (one copy alone).
 *
 * None of these methods throws: expected faults are values.
 */
import type { DeadLetter, EndReply, Look, LeaseReply, ReleaseReply, RestoreDetail, RetryPolicy, Takeover } from './lease.js';

export type { DeadLetter };
import type { ClaimOutcome } from './outcome.js';
import type { ClaimOwner, LeaseRequest } from './record.js';

export type StoreKind = 'upstash' | 'memory';

/** Where the shared store is: an Upstash Redis database's REST URL and token. */
export interface UpstashSettings {
  url: string;
  token: string;
}

export interface StoreHealth {
  ok: boolean;
  reason?: string;
}

export interface ClaimOptions {
  /**
   * Nobody waits for an ack (a turn acked already is claimed again, with a
   * lease, as after a confirm found its first claim absent): each attempt
   * gets the longer fuse of the commands off the ack path. @default false
   */
  offAckPath?: boolean;
  /**
   * A lease request with a conversation: the claim makes the turn's first
   * look at its conversation's gate too, in the same command, when the turn
   * is alone in its thread's order (nothing else there live, and not
   * skipped): `claimed` then carries `admitted`, and the gate does not look.
   * Only for a claim made before the turn runs (the ack path, a catch-up):
   * never a claim again of a turn already running or waiting. @default false
   */
  firstLook?: boolean;
  /**
   * The nonce the claim's write carries (default: one of the store's own). The caller that gives it can
   * confirm a leased claim its own deadline gave up on, though the store's answer never reached it.
   */
  nonce?: string;
}

/** Taking a delivery before the ack. */
export interface Claims {
  /**
   * Take a delivery under every key in `keys` (primary first), all or none.
   * Resolves `claimed`, `duplicate` (a key is held: a positive answer) or
   * `fail-open`. With a lease, `claimed` carries token 1.
   */
  claim(keys: readonly string[], owner: ClaimOwner, lease?: LeaseRequest, options?: ClaimOptions): Promise<ClaimOutcome>;
  /**
   * A leased claim that failed open (`nonce` from its outcome), asked about
   * once the store answers again: `mine` when it landed after all and is
   * still this claim's, live, under token 1 (its lease is kept from now: run
   * it under that lease, never leave it to be taken over), `absent` when it
   * never landed, `held` when another delivery's claim holds the key, `lost`
   * when it landed but was taken over or has ended since.
   */
  confirm(key: string, nonce: string, leaseMs: number): Promise<ConfirmReply>;
}

/** What `confirm` found of a claim that timed out. */
export type ConfirmReply = 'mine' | 'absent' | 'held' | 'lost' | 'unreachable';

/** What a look is told besides its owner and limits. */
export interface LookOptions {
  /** Dead-letter a lapsed lease whose runs or retry window are spent (its owners kept dying) instead of taking it. */
  policy?: RetryPolicy;
  /**
   * Keys of turns this copy runs now without holding their lease (claims that
   * failed open and may have landed late): never taken by this copy's own
   * look, whose lease is kept alive instead until the copy confirms it.
   */
  running?: readonly string[];
  /** Keys of dead letters this copy's earlier looks reported and it has told the owner of: reported no more. */
  told?: readonly string[];
}

/** How a streamed reply went, for the status page: how it ended, in how many chunks, how long it took. */
export interface StreamDetail {
  how: string;
  chunks: number;
  ms: number;
}

/** The status page's line for a turn that ended, written with the lease's last operation. */
export interface TurnLine {
  /** The JSON line for the turns list. */
  line: string;
  /** Served by the cloud copy: also counts as a failover. */
  cloud: boolean;
  at: string;
}

export interface Leases {
  /**
   * Renew all of this copy's leases in one request: a reply per lease, in
   * order. `confirmed`: how much of the lease's streamed reply Slack has
   * confirmed, recorded on the way. `missing`: the store has no record of
   * it (see `restore`).
   */
  renew(leases: readonly { key: string; token: number; confirmed?: number }[], leaseMs: number): Promise<LeaseReply[]>;
  /** A streamed reply started under this lease: record its message's ts. */
  markStream(key: string, token: number, ts: string): Promise<LeaseReply>;
  /** The commit point before posting, when the lease is not provably held: -> `posting`. */
  commit(key: string, token: number, leaseMs: number): Promise<LeaseReply>;
  /**
   * The store forgot a live turn (its record is gone): its owner writes the
   * claim again under the same token, sealed as a claim is, puts it back in
   * the lease set, and re-creates the message aliases that are gone, so a
   * later delivery of the message is a duplicate. Only when the key is
   * absent: `ok` when written (or already this token's, a restore whose
   * answer was lost), `lost` when another record is there.
   */
  restore(key: string, token: number, owner: ClaimOwner, request: LeaseRequest, aliasKeys: readonly string[], detail?: RestoreDetail): Promise<EndReply>;
  /** The turn is over: `done`, the body dropped, the reply's ts kept a day. */
  finish(key: string, token: number, replyTs: string | null, turn?: TurnLine): Promise<LeaseReply>;
  /** A transient failure: another run after `delayMs`, or a dead letter when the policy is spent. */
  /** `free`: this run does not count against the turn's attempts (a closed rate-limit window, a hand-back at shutdown). */
  release(
    key: string,
    token: number,
    failure: { delayMs: number; reason: string; ambiguous: boolean; free?: boolean; policy: RetryPolicy; turn?: TurnLine },
  ): Promise<ReleaseReply>;
  /** A permanent failure: a dead letter at once. */
  deadLetter(key: string, token: number, reason: string, turn?: TurnLine): Promise<LeaseReply>;
  /** Turns with a live lease or a retry pending, across all copies; undefined when the store could not answer. */
  pending(): Promise<number | undefined>;
  /** A gap the catch-up sweep has read back: forget it. */
  dropGap(raw: string): Promise<void>;
  /**
   * Take up to `limit` lapsed or due leases for `owner`, write its heartbeat,
   * and say when the next is due. With a `policy`, a lapsed lease whose runs
   * or retry window are spent is dead-lettered instead of taken (its owners
   * kept dying), and listed in `dead`. A lease set found lost is rebuilt from
   * the records.
   */
  look(owner: ClaimOwner, leaseMs: number, limit: number, heartbeat?: string, options?: LookOptions): Promise<Look | undefined>;
}

export interface DeadLetters {
  /** The newest `limit` dead letters; undefined when the store could not answer. */
  listDead(limit: number): Promise<DeadLetter[] | undefined>;
  /** Run a dead letter again under a new token for `owner`; undefined when it is not (or no longer) dead. */
  replayDead(key: string, owner: ClaimOwner, leaseMs: number): Promise<Takeover | undefined>;
  /** Forget a dead letter (its claim is kept a day); false when it was not dead. */
  dropDead(key: string): Promise<boolean>;
}

/** Small values with a lifetime. */
export interface Records {
  /** A string value, `null` when absent, `undefined` when the store could not answer. */
  read(key: string): Promise<string | null | undefined>;
  /**
   * Take `key` for `holder` for `ttlSeconds` if nobody else holds it: true when
   * taken (or already `holder`'s: a take whose answer was lost may land
   * late), false when another holds it, undefined when the store could not
   * answer. `holder` must be unique to the process.
   */
  lock(key: string, ttlSeconds: number, holder: string): Promise<boolean | undefined>;
  /** Let `key` go if `holder` still holds it. Never throws. */
  unlock(key: string, holder: string): Promise<void>;
  /** A detached bookkeeping write; resolves when done, never throws. */
  note(key: string, value: string, ttlSeconds: number): Promise<void>;
  /**
   * Write `value` at `key` for `ttlSeconds` unless a newer one is there, in
   * one command: `order` (digits of one width that sort as the values'
   * times do, e.g. an event's ts padded) is kept beside it, and a write whose
   * order sorts before the kept one's is dropped. An equal order writes (the
   * same event seen twice). true written, false a newer value is kept,
   * undefined when the store could not answer. Never throws.
   */
  noteNewest(key: string, value: string, order: string, ttlSeconds: number): Promise<boolean | undefined>;
  /** Every field of a hash; undefined when the store could not answer. */
  readHash(key: string): Promise<Record<string, string> | undefined>;
  /**
   * Add `member` to the set at `key`, in one command, and say how many it
   * holds now: the set lives `ttlSeconds` from its first member (a window
   * that does not slide), and a member added twice counts once (a retry of
   * one turn is not a second turn). undefined when the store could not answer.
   * Never throws.
   */
  tally(key: string, member: string, ttlSeconds: number): Promise<number | undefined>;
}

/** Capped lists, newest first. */
export interface Lists {
  /** Put `values` (oldest first) at the head of `key`, keeping the newest `max`; never throws. */
  push(key: string, values: readonly string[], max: number): Promise<void>;
  /** The newest `count` values of `key`; [] when absent or unreachable. */
  range(key: string, count: number): Promise<string[]>;
}

/** Rate-limit windows shared by the copies: learnt from claim replies, published on a refusal. */
export interface SharedWindows {
  /** When the window `field` reopens, as last learnt; undefined when none is known. */
  known(field: string): number | undefined;
  /** Tell the other copies a window closed until `reopenAt` (epoch ms). */
  publish(field: string, reopenAt: number): void;
}

export interface Pingable {
  readonly kind: StoreKind;
  /** A bounded round trip, for start-up. */
  ping(): Promise<StoreHealth>;
  /** What the last operation said about the store, without asking it. */
  observed(): StoreHealth & { at: number | null };
}

/**
 * A turn's steps (ctx.step, lib/turn/steps.ts): each step's JSON result kept
 * with the turn, sealed like its body, for as long as its claim, so a retry
 * or a takeover returns it instead of running the step again.
 */
export interface TurnSteps {
  /**
   * Keep one step's result (one command), only while `token` still holds the
   * turn, live: `lost` when another copy holds it (nothing written: the
   * taker-over's result stays), `unreachable` when the store could not answer
   * (the step then runs again on a retry). A turn whose claim is not in the
   * store at all (forgotten) keeps it. Without a token (a claim that failed
   * open) it is kept unfenced.
   */
  keepStep(turnKey: string, name: string, json: string, token?: number): Promise<EndReply>;
  /** Every kept step of a turn, name -> JSON (one command); {} when none, undefined when the store could not answer. */
  loadSteps(turnKey: string): Promise<Record<string, string> | undefined>;
}

/** Where a turn stands in its conversation (lib/conversation). */
export interface ConversationPlace {
  /** `go`: nothing live is ahead; `wait`: `ahead` turns are; `skipped`: past the bound, this turn is answered with a note. */
  kind: 'go' | 'wait' | 'skipped';
  ahead: number;
  /** A waiting turn this look marked skipped (the bound was passed), for the log. */
  skippedNow?: string;
  /** Running turns before this one that this look marked interrupted (`interrupt`), for their owners to see. */
  interrupting?: number;
}

/**
 * One turn at a time per conversation, across the copies: the order is kept
 * in the store, so a copy that dies while a turn waits loses neither.
 */
export interface Conversations {
  /**
   * Take (or keep) this turn's place in `conversation` and say whether it may
   * run: one command. Undefined when the store could not answer.
   */
  enterConversation(conversation: string, turnKey: string, maxWaiting: number, interrupt?: boolean): Promise<ConversationPlace | undefined>;
  /**
   * Whether a newer message of `conversation` marked the running turn
   * `turnKey` interrupted (`enterConversation` with `interrupt`): one
   * command. Undefined when the store could not answer.
   */
  conversationInterrupted(conversation: string, turnKey: string): Promise<boolean | undefined>;
}

/** Everything: what `createStore` returns and a copy hands out in slices. Declared once, here, from the roles above. */
export interface SharedStore extends Claims, Leases, DeadLetters, Records, Lists, Pingable, TurnSteps, Conversations {
  readonly windows: SharedWindows;
}
