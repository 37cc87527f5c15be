/** The whole system on loopback for a test: two real copies on one Redis, a tunnel before the hub, the edge before both. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEdgeRouter, parseEdgeSettings, type EdgeRouter } from '../../lib/edge/index.js';
import { serveFetchHandler } from '../../lib/edge-node/index.js';
import { startFakeWebApi, type FakeWebApi } from '../../drill/sim/fake-web-api.js';
import { startTunnel, type Tunnel } from '../../drill/sim/tunnel.js';
import { SECRET, startCopy, type RunningCopy } from './copies.js';
import type { RedisFixture } from './redis-fixture.js';

export interface System {
  api: FakeWebApi;
  hub: RunningCopy;
  cloud: RunningCopy;
  tunnel: Tunnel;
  router: EdgeRouter;
  /** The edge's base URL (no path). */
  edgeUrl: string;
  close(): Promise<void>;
}

export async function startSystem(fx: RedisFixture): Promise<System> {
  const api = await startFakeWebApi();
  const upstash = { url: fx.bridge.url, token: fx.bridge.token };
  const hub = await startCopy({ role: 'hub', webApiUrl: api.url, upstash });
  const cloud = await startCopy({ role: 'cloud', webApiUrl: api.url, upstash });
  const tunnel = await startTunnel(hub.url);
  const router = createEdgeRouter({ settings: parseEdgeSettings({ HUB_URL: tunnel.url, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: SECRET }) });
  const edge: Server = serveFetchHandler(router.handle);
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  return {
    api,
    hub,
    cloud,
    tunnel,
    router,
    edgeUrl: `http://127.0.0.1:${(edge.address() as AddressInfo).port}`,
    close: async () => {
      edge.closeAllConnections();
      edge.close();
      await tunnel.close();
      await hub.stop();
      await cloud.stop();
      await api.close();
    },
  };
}
