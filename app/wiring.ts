/**
 * Who wakes whom in a copy: every call one of its parts makes into another,
 * in one place. The parts (app/parts.ts) are built with the wakes `wire`
 * returns and never hold one another; `wire` reaches the parts through
 * `partsOnceWired`, set once every part exists (app/create-app.ts, before start()).
 */
import type { ClaimKind, Look, Takeover } from '../lib/store/index.js';
import type { AppRateLimited } from '../lib/delivery/index.js';
import type { DeadTurn } from '../lib/lease/index.js';
import type { TurnsView } from '../lib/liveness/index.js';
import type { SweepRecord } from '../lib/catchup/index.js';
import type { Logger } from '../lib/log/index.js';
import { allowanceReached, appRateLimitedDetail, isAuthFailure, missedWhileServing, type NoticeCause } from '../lib/notice/index.js';
import type { RefusalRecord, WebApiAnswer } from '../lib/ratelimit/index.js';

/** The calls between the parts, named by what happened; each says who makes it and who it reaches. */
export interface Wakes {
  /** runner -> reaper: a turn was handed back for a retry due in `ms`: look then. */
  lookIn(ms: number): void;
  /** runner -> reaper: a turn slot came free. */
  slotFree(): void;
  /** receiver -> reaper: the edge's hint, the other copy acked a turn under a lease. */
  hint(): void;
  /** receiver -> reaper, status page: the edge sent this delivery here because the hub failed. */
  failover(reason: string): void;
  /** peer watch -> reaper: the other copy stopped answering its health. */
  peerLost(reason: string): void;
  /** peer watch -> inbox: the other copy answers again (what the edge kept meanwhile is drained). */
  peerBack(): void;
  /** receiver -> inbox: the edge says its inbox holds deliveries it kept since a copy last heard so (drained now). */
  inboxKept(): void;
  /** reaper -> runner: the turns running here without their lease (a claim that failed open may have landed). */
  unleased(): readonly string[];
  /** reaper -> runner: how many turns this copy can take over now. */
  capacity(): number;
  /** reaper -> runner: a turn taken over, to run here. */
  resume(takeover: Takeover, sentAt: number): void;
  /** reaper -> heartbeat: this copy's record on the status page. */
  heartbeat(): string;
  /** reaper -> notices, sweeper -> notices: a look at the store (the month's commands, how long since a copy claimed). */
  look(look: Look): void;
  /** sweeper -> runner: a mention Slack gave up on, claimed like any delivery. */
  inject(envelope: Record<string, unknown>): Promise<ClaimKind>;
  /** health -> runner, keeper: the turns and leases of this copy. */
  turns(): TurnsView;
  /** runner, reaper -> owners: a turn became a dead letter. */
  deadLetter(dead: DeadTurn): void;
  /** receiver -> notices: Slack said it is dropping this app's events. */
  appRateLimited(notice: AppRateLimited): void;
  /** receiver -> notices: a live claim failed open. */
  failOpen(reason: string): void;
  /** runner -> notices: failed turns are kept here, waiting for the store to take their retry. */
  waitingOnStore(count: number): void;
  /** Web API (rate-limit layer) -> notices: every answer, for an auth failure. */
  answered(answer: WebApiAnswer): void;
  /** Web API (rate-limit layer) -> refusal log, status: Slack refused a call for its rate. */
  refused(record: RefusalRecord): void;
  /** notices -> owners: a fault only the owner can fix, to tell now. */
  tell(text: string, cause: NoticeCause): Promise<void>;
}

/** The parts `wire` calls into, each as narrow as the calls it takes. */
export interface WiredParts {
  runner: {
    readonly unleased: readonly string[];
    readonly capacity: number;
    readonly inFlight: number;
    readonly queued: number;
    readonly pastDeadline: number;
    readonly waitingOnStore: number;
  } & {
    resume(takeover: Takeover, sentAt: number): void;
    inject(envelope: Record<string, unknown>): Promise<ClaimKind>;
    storeAnswered(): Promise<void>;
  };
  reaper: { lookIn(ms: number): void; slotFree(): void };
  keeper: { readonly size: number };
  /** Undefined without AUTOHUB_CATCHUP. */
  sweeper: { maybeSweep(look: Look): Promise<SweepRecord | undefined>; noticeRefusal?(record: RefusalRecord): void } | undefined;
  notices: { raise(cause: NoticeCause, detail: string): void };
  status: { refusal(record: RefusalRecord): void };
  /** The refusal log (AUTOHUB_REFUSAL_LOG). */
  refusals: (record: RefusalRecord) => void;
  owners: { notice(text: string, cause: NoticeCause): Promise<void>; deadLetter(dead: DeadTurn): void };
  heartbeat: () => string;
  /** The edge's failover reasons, to the status page (throttled). */
  noteFailover: (reason: string) => void;
  /** Since when this copy serves: a sweep finding mentions from after it means Slack never delivered them here. */
  servingSince: () => number;
  log: Logger;
  leaseMs: number;
  /** The store plan's monthly commands (AUTOHUB_STORE_ALLOWANCE). */
  storeAllowance: number;
  /** The edge's inbox, drained when a look's hourly check finds it holds something. @default none */
  inbox?: { look(): void; drainNow?(reason: string): void };
  /** ctx.ask's deadline watch: reads the parked questions when the other copy may have left some to this one. @default none */
  questions?: { look(throttled?: boolean): void };
}

/** How far to look when another copy's leases will have lapsed: a lease and a little. */
export const lapsedIn = (leaseMs: number): number => leaseMs + 250;

export function wire(parts: WiredParts | (() => WiredParts)): Wakes {
  const p = typeof parts === 'function' ? parts : () => parts;
  const lapsedInMs = () => lapsedIn(p().leaseMs);
  return {
    lookIn: (ms) => p().reaper.lookIn(ms),
    slotFree: () => p().reaper.slotFree(),
    // lookIn only moves a look earlier: many hints, one look.
    hint: () => p().reaper.lookIn(lapsedInMs()),
    // The hub's leases lapse within a lease, so look then.
    // The other copy's parked questions may be this one's to time out now (the watch reads at most once a gap).
    failover: (reason) => {
      p().reaper.lookIn(lapsedInMs());
      p().noteFailover(reason);
      p().questions?.look(true);
    },
    peerLost: (reason) => {
      p().log.warn('peer.lost', { reason, lookInMs: lapsedInMs() });
      p().reaper.lookIn(lapsedInMs());
      p().questions?.look();
    },
    peerBack: () => p().inbox?.drainNow?.('peer back'),
    inboxKept: () => p().inbox?.drainNow?.('edge kept'),
    // A claim that timed out may have landed: the look keeps its lease alive until the runner confirms it.
    unleased: () => p().runner.unleased,
    capacity: () => p().runner.capacity,
    resume: (takeover, sentAt) => p().runner.resume(takeover, sentAt),
    heartbeat: () => p().heartbeat(),
    look: (look) => {
      p().inbox?.look();
      // The store answers: failed turns kept for it are claimed and run now.
      void p().runner.storeAnswered();
      // The plan's monthly commands, as the looks add them up (Upstash only): the owner hears at 80%.
      if (look.monthCommands !== undefined && allowanceReached(look.monthCommands, p().storeAllowance)) {
        p().notices.raise('store_allowance', `${look.monthCommands} of ${p().storeAllowance} commands this month`);
      }
      // Every look says how long ago any copy last claimed a delivery: the sweep decides from that.
      void p()
        .sweeper?.maybeSweep(look)
        .then((sweep) => {
          if (sweep && missedWhileServing(sweep, p().servingSince()))
            p().notices.raise('slack_not_delivering', `${sweep.answered} mention(s) from ${sweep.from} to ${sweep.to}`);
        });
    },
    inject: (envelope) => p().runner.inject(envelope),
    turns: () => {
      const { runner, keeper } = p();
      return {
        running: runner.inFlight,
        waiting: runner.queued,
        leases: keeper.size,
        past_deadline: runner.pastDeadline,
        waiting_on_store: runner.waitingOnStore,
      };
    },
    deadLetter: (dead) => p().owners.deadLetter(dead),
    appRateLimited: (notice) => p().notices.raise('app_rate_limited', appRateLimitedDetail(notice)),
    failOpen: (reason) => p().notices.raise('claims_fail_open', reason),
    waitingOnStore: (count) => p().notices.raise('turns_waiting_on_store', `${count} turn(s) whose reply failed wait for the store to answer`),
    answered: (answer) => {
      if (isAuthFailure(answer.error)) p().notices.raise('web_api_auth', `${answer.method}: ${answer.error}`);
    },
    refused: (record) => {
      p().refusals(record);
      // A history method refused for most of a minute: the sweep takes the non-Marketplace pace.
      p().sweeper?.noticeRefusal?.(record);
      p().status.refusal(record);
    },
    tell: (text, cause) => p().owners.notice(text, cause),
  };
}

/**
 * The parts of a copy, once they all exist: what `wire` answers through. The
 * parts are built one after the other, each given the wakes first, so a part
 * that wakes another during construction (before the copy is wired) fails
 * loudly here instead of reaching nothing.
 */
export function partsOnceWired(): { get: () => WiredParts; set: (parts: WiredParts) => void } {
  let wired: WiredParts | undefined;
  return {
    get: () => {
      if (!wired) throw new Error('a part woke another before the copy was wired');
      return wired;
    },
    set: (parts) => {
      wired = parts;
    },
  };
}
