/**
 * Everything the drill runs, on loopback: the claim store, a fake Web API,
 * the hub behind a cuttable tunnel, the cloud copy behind a fault injector,
 * and the edge router serving both.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { MemoryStore, UpstashStore } from '../lib/store/index.js';
import { createEdgeRouter, parseEdgeSettings, type EdgeRouter } from '../lib/edge/index.js';
import { createEdgeKeeper, parseInboxSettings } from '../lib/inbox/index.js';
import { serveFetchHandler } from '../lib/edge-node/index.js';
import { startFakeWebApi, type FakeWebApi } from './sim/fake-web-api.js';
import { startRedis, type PrivateRedis } from './sim/redis-server.js';
import { RespClient } from './sim/resp-client.js';
import { startTicketDesk, type TicketDesk } from './sim/ticket-desk.js';
import { startTunnel, type Tunnel } from './sim/tunnel.js';
import { startUpstashBridge, type UpstashBridge } from './sim/upstash-bridge.js';
import { botEnvOf, DRILL_HEALTH_TOKEN, startChildCopy, startInProcessCopy, type CopyHandle } from './copies.js';
import { hangable } from './hangable-store.js';
import type { Level } from '../lib/log/index.js';

export const DRILL_SECRET = 'drill-signing-secret';
/** Your bot under the drill's pacing, as the copies' AUTOHUB_TURN. */
const PACED_TURN = fileURLToPath(new URL('./paced-turn.ts', import.meta.url));
/** The copies show their full health body to the drill alone. */
const HEALTH_AUTH = { authorization: `Bearer ${DRILL_HEALTH_TOKEN}` };

export interface Harness {
  storeKind: 'redis-server' | 'in-process';
  api: FakeWebApi;
  hub: CopyHandle;
  cloud: CopyHandle;
  hubTunnel: Tunnel;
  cloudTunnel: Tunnel;
  edgeUrl: string;
  /** Where the demo turn files its step's tickets when a scenario asks (AUTOHUB_DEMO_TICKET_URL). */
  tickets: TicketDesk;
  router(): EdgeRouter;
  /** A fresh edge isolate (no memory of the hub), for the next scenario. */
  resetEdge(): void;
  /**
   * The edge's inbox from the next resetEdge on: `none` (no store settings: 503 when no copy answers), `kept` (the
   * shared store, as the Worker's UPSTASH_REDIS_REST_URL/_TOKEN secrets give it), `unreachable` (set, but the
   * store cannot be reached from the edge), `kept-foreign-key` (as `kept`, sealed with an AUTOHUB_STORE_KEY the copies
   * do not hold: a Worker given another key than the copies). `kept*` needs redis-server (the REST bridge): without it, no inbox.
   */
  edgeInbox(mode: EdgeInboxMode): void;
  /** What the edge logged since its last reset, counted by event (`edge.inbox_failed` also by its reason: `edge.inbox_failed: store timeout`). */
  edgeEvents(): Map<string, number>;
  /** Make the store stop answering, or answer again. */
  hangStore(hung: boolean): void;
  /** The store forgets everything (FLUSHALL; Upstash evicting a full database is the same for a turn). */
  flushStore(): Promise<void>;
  /** Commands the store has run so far, as Upstash bills them; undefined with the in-process store. */
  storeCommands(): number | undefined;
  /** The REST bridge in front of the store (its faults: refuse, slow), when there is one. */
  bridge: UpstashBridge | undefined;
  /** Dead letters in the store now. */
  deadLetters(): Promise<number>;
  /** The event ids of the dead letters in the store now. */
  deadEventIds(): Promise<string[]>;
  /**
   * The store refuses every request as Upstash does past the plan's monthly
   * limit (`ERR max requests limit exceeded`), or answers again. In process, it hangs instead (the copies see the same).
   */
  spendStore(spent: boolean): void;
  /** Every store round trip takes `ms` longer (its commands still run, after the delay); 0: normal. Needs redis-server. */
  slowStore(ms: number): void;
  /** Turns still live in the store (leased or waiting for a retry); undefined when it cannot say. */
  pending(): Promise<number | undefined>;
  /** When the store took a delivery's claim (its record's first_at, the store's ms); undefined when it has none. */
  claimedAt(key: string): Promise<number | undefined>;
  /** More cloud copies behind the cloud's balancer, taken in turn with the first (Railway's `replicas`). */
  addReplicas(n: number): Promise<CopyHandle[]>;
  /** Stop the added replicas; the cloud is one copy again. */
  removeReplicas(): Promise<void>;
  /** An added replica, by index. */
  replica(i: number): CopyHandle | undefined;
  /** Resolves once a streamed reply is open with at least one append; rejects after `timeoutMs`. */
  streaming(timeoutMs: number): Promise<void>;
  /** Resolves once `copy`'s health says it has a turn in flight; rejects after `timeoutMs`. */
  busy(copy: CopyHandle, timeoutMs: number): Promise<void>;
  /** A line of the drill's own about the scenario (a figure beside its table row), kept with the copies' logs (onLog, as `drill`). */
  note(line: string): void;
  close(): Promise<void>;
}

export type EdgeInboxMode = 'none' | 'kept' | 'kept-foreign-key' | 'unreachable';

/**
 * A store the edge cannot reach: every connection is reset at once (a fixed closed port may instead be dropped
 * by a firewall, and each keep would then wait out its 400 ms fuse).
 */
async function startUnreachableStore(): Promise<{ url: string; close(): void }> {
  const server = createNetServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

export interface HarnessOptions {
  factor: number;
  inProcess?: boolean;
  /** The bot the copies run (AUTOHUB_TURN); unset: the demo turn. Its own settings come from this process's environment. */
  turn?: string;
  /** Run `turn` under the scenarios' pacing (drill/paced-turn.ts: the demo's think and chunk pauses around your bot), in child copies. */
  paced?: boolean;
  /** Each line a child copy logs, with its instance (the copies then log at info). */
  onLog?: (instance: string, line: string) => void;
  /** The level the copies log at when `onLog` takes their lines. @default 'info' */
  logLevel?: Level;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const api = await startFakeWebApi();
  const tickets = await startTicketDesk();
  let redis: PrivateRedis | undefined;
  let bridge: UpstashBridge | undefined;
  if (!options.inProcess) {
    try {
      redis = await startRedis();
      bridge = await startUpstashBridge({ redisPort: redis.port });
    } catch {
      await redis?.stop();
      redis = undefined;
      bridge = undefined;
    }
  }
  const copyEnv = {
    signingSecret: DRILL_SECRET,
    webApiUrl: api.url,
    factor: options.factor,
    ...(bridge ? { upstash: { url: bridge.url, token: bridge.token } } : {}),
    ...(options.turn === undefined
      ? {}
      : options.paced && bridge
        ? { turn: PACED_TURN, botEnv: { ...botEnvOf(), AUTOHUB_DRILL_BOT: options.turn } }
        : { turn: options.turn, botEnv: botEnvOf() }),
    ...(options.onLog ? { onLog: options.onLog } : {}),
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
  };
  const memory = bridge ? undefined : new MemoryStore();
  const shared = memory ? hangable(memory) : undefined;
  const started = await Promise.allSettled(
    (['hub', 'cloud'] as const).map((role) => (shared ? startInProcessCopy(role, copyEnv, shared) : startChildCopy(role, copyEnv))),
  );
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    // A copy that did not start (a slow machine, a bot that fails at start): what did start is stopped, the
    // redis-server too, so a caller that goes on (the drill's next scenario) leaves nothing running.
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    await Promise.all([api.close(), tickets.close()]);
    await bridge?.close();
    await redis?.stop();
    throw failed.reason;
  }
  const [hub, cloud] = started.map((s) => (s as PromiseFulfilledResult<CopyHandle>).value);
  const hubTunnel = await startTunnel(hub!.url);
  const cloudTunnel = await startTunnel(cloud!.url);

  // The edge's memory of a failed hub is scaled with Slack's retry schedule.
  const settings = parseEdgeSettings({
    HUB_URL: hubTunnel.url,
    CLOUD_URL: cloudTunnel.url,
    SLACK_SIGNING_SECRET: DRILL_SECRET,
    EDGE_DOWN_TTL_MS: String(Math.max(1, Math.round(30_000 / options.factor))),
    // The edge's full health body (its inbox's store key id among it) to the drill alone, as the copies'.
    AUTOHUB_HEALTH_TOKEN: DRILL_HEALTH_TOKEN,
  });
  const unreachable = await startUnreachableStore();
  // The copies derive theirs from the signing secret (they are given no AUTOHUB_STORE_KEY): a random one is not it.
  const foreignKey = randomBytes(32).toString('hex');
  let inboxMode: EdgeInboxMode = 'none';
  const edgeEvents = new Map<string, number>();
  const log = (event: string, fields: Record<string, unknown>) => {
    const key = event === 'edge.inbox_failed' ? `${event}: ${String(fields.inbox)}` : event;
    edgeEvents.set(key, (edgeEvents.get(key) ?? 0) + 1);
  };
  const newRouter = (): EdgeRouter => {
    edgeEvents.clear();
    // Without redis-server there is no REST bridge to keep in: no inbox (the scenario's fault says it is not staged).
    const kept = inboxMode === 'kept' || inboxMode === 'kept-foreign-key';
    if (inboxMode === 'none' || (kept && !bridge)) return createEdgeRouter({ settings, log });
    const url = kept ? bridge!.url : unreachable.url;
    const inbox = parseInboxSettings({
      UPSTASH_REDIS_REST_URL: url,
      UPSTASH_REDIS_REST_TOKEN: bridge?.token ?? 'unreachable',
      ...(inboxMode === 'kept-foreign-key' ? { AUTOHUB_STORE_KEY: foreignKey } : {}),
    })!;
    return createEdgeRouter({ settings, log, inbox: createEdgeKeeper({ settings: inbox, signingSecret: DRILL_SECRET }) });
  };
  let router = newRouter();
  const replicas: CopyHandle[] = [];
  const reader = shared ?? (bridge ? new UpstashStore({ settings: { url: bridge.url, token: bridge.token }, reporter: () => {} }) : undefined);
  const edge: Server = serveFetchHandler((request) => router.handle(request));
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  const edgeUrl = `http://127.0.0.1:${(edge.address() as AddressInfo).port}/slack/events`;

  return {
    storeKind: bridge ? 'redis-server' : 'in-process',
    api,
    hub: hub!,
    cloud: cloud!,
    hubTunnel,
    cloudTunnel,
    edgeUrl,
    tickets,
    router: () => router,
    resetEdge: () => {
      router = newRouter();
    },
    edgeEvents: () => edgeEvents,
    edgeInbox: (mode) => {
      inboxMode = mode;
      router = newRouter();
    },
    pending: async () => reader?.pending(),
    claimedAt: async (key) => {
      const raw = await reader?.read(key);
      const at = raw ? (JSON.parse(raw) as { first_at?: unknown }).first_at : undefined;
      return typeof at === 'number' ? at : undefined;
    },
    storeCommands: () => bridge?.commands,
    note: (line) => options.onLog?.('drill', line),
    bridge,
    addReplicas: async (n) => {
      const added = await Promise.all(
        Array.from({ length: n }, (_, i) => {
          const env = { ...copyEnv, instance: `drill-cloud-${i + 2}` };
          return shared ? startInProcessCopy('cloud', env, shared) : startChildCopy('cloud', env);
        }),
      );
      replicas.push(...added);
      cloudTunnel.extraTargets = replicas.map((r) => r.url);
      return added;
    },
    replica: (i) => replicas[i],
    streaming: async (timeoutMs) => {
      const until = Date.now() + timeoutMs;
      while (![...api.streams.values()].some((st) => st.state === 'streaming' && st.appends >= 1)) {
        if (Date.now() > until) throw new Error(`no stream was open within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    busy: async (copy, timeoutMs) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const body = (await fetch(`${copy.url}/slack/health`, { headers: HEALTH_AUTH })
          .then((r) => r.json())
          .catch(() => ({}))) as { turns?: { running?: number } };
        if ((body.turns?.running ?? 0) > 0) return;
        if (Date.now() > until) throw new Error(`${copy.instance} had no turn in flight within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    removeReplicas: async () => {
      cloudTunnel.extraTargets = [];
      await Promise.all(replicas.splice(0).map((r) => r.stop()));
    },
    deadLetters: async () => (await reader?.listDead(10_000))?.length ?? 0,
    deadEventIds: async () => ((await reader?.listDead(10_000)) ?? []).map((d) => d.eventId),
    spendStore: (spent) => {
      if (bridge) bridge.mode = spent ? 'quota' : 'normal';
      else if (shared) shared.hung = spent;
    },
    slowStore: (ms) => {
      if (!bridge) throw new Error('a slow store needs redis-server (the in-process store has no round trip)');
      bridge.delayMs = ms;
    },
    flushStore: async () => {
      if (memory) return memory.flush();
      const client = await RespClient.open(redis!.port);
      try {
        await client.command(['FLUSHALL']);
      } finally {
        client.close();
      }
    },
    hangStore: (hung) => {
      if (redis) {
        if (hung) redis.pause();
        else redis.resume();
      } else if (shared) shared.hung = hung;
    },
    close: async () => {
      edge.closeAllConnections();
      edge.close();
      await Promise.all([hub!.stop(), cloud!.stop(), ...replicas.map((r) => r.stop())]);
      await Promise.all([hubTunnel.close(), cloudTunnel.close(), api.close(), tickets.close()]);
      unreachable.close();
      await bridge?.close();
      await redis?.stop();
    },
  };
}
