/**
 * Everything the drill runs, on loopback: the claim store, a fake Web API,
 * the hub behind a cuttable tunnel, the cloud copy behind a fault injector,
 * and the edge router serving both.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryStore, UpstashStore } from '../lib/store/index.js';
import { createEdgeRouter, parseEdgeSettings, type EdgeRouter } from '../lib/edge/index.js';
import { serveFetchHandler } from '../lib/edge/serve-node.js';
import { startFakeWebApi, type FakeWebApi } from './sim/fake-web-api.js';
import { startRedis, type PrivateRedis } from './sim/redis-server.js';
import { startTunnel, type Tunnel } from './sim/tunnel.js';
import { startUpstashBridge, type UpstashBridge } from './sim/upstash-bridge.js';
import { startChildCopy, startInProcessCopy, type CopyHandle } from './copies.js';
import { hangable } from './hangable-store.js';

export const DRILL_SECRET = 'drill-signing-secret';

export interface Harness {
  storeKind: 'redis-server' | 'in-process';
  api: FakeWebApi;
  hub: CopyHandle;
  cloud: CopyHandle;
  hubTunnel: Tunnel;
  cloudTunnel: Tunnel;
  edgeUrl: string;
  router(): EdgeRouter;
  /** A fresh edge isolate (no memory of the hub), for the next scenario. */
  resetEdge(): void;
  /** Make the store stop answering, or answer again. */
  hangStore(hung: boolean): void;
  /** Dead letters in the store now. */
  deadLetters(): Promise<number>;
  /** Turns still live in the store (leased or waiting for a retry); undefined when it cannot say. */
  pending(): Promise<number | undefined>;
  close(): Promise<void>;
}

export async function startHarness(options: { factor: number; inProcess?: boolean }): Promise<Harness> {
  const api = await startFakeWebApi();
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
  const copyEnv = { signingSecret: DRILL_SECRET, webApiUrl: api.url, ...(bridge ? { upstash: { url: bridge.url, token: bridge.token } } : {}) };
  const shared = bridge ? undefined : hangable(new MemoryStore());
  const [hub, cloud] = await Promise.all(
    (['hub', 'cloud'] as const).map((role) => (shared ? startInProcessCopy(role, copyEnv, shared) : startChildCopy(role, copyEnv))),
  );
  const hubTunnel = await startTunnel(hub!.url);
  const cloudTunnel = await startTunnel(cloud!.url);

  // The edge's memory of a failed hub is scaled with Slack's retry schedule.
  const settings = parseEdgeSettings({
    HUB_URL: hubTunnel.url,
    CLOUD_URL: cloudTunnel.url,
    SLACK_SIGNING_SECRET: DRILL_SECRET,
    EDGE_DOWN_TTL_MS: String(Math.max(1, Math.round(30_000 / options.factor))),
  });
  let router = createEdgeRouter({ settings });
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
    router: () => router,
    resetEdge: () => {
      router = createEdgeRouter({ settings });
    },
    pending: async () => reader?.pending(),
    deadLetters: async () => (await reader?.listDead(10_000))?.length ?? 0,
    hangStore: (hung) => {
      if (redis) {
        if (hung) redis.pause();
        else redis.resume();
      } else if (shared) shared.hung = hung;
    },
    close: async () => {
      edge.closeAllConnections();
      edge.close();
      await Promise.all([hub!.stop(), cloud!.stop()]);
      await Promise.all([hubTunnel.close(), cloudTunnel.close(), api.close()]);
      await bridge?.close();
      await redis?.stop();
    },
  };
}
