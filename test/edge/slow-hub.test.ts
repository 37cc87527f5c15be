import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeRouter, parseEdgeSettings, type EdgeRouter } from '../../lib/edge/index.js';
import { serveFetchHandler } from '../../lib/edge/serve-node.js';
import { startFakeWebApi, type FakeWebApi } from '../../lib/sim/fake-web-api.js';
import { deliver, mentionEnvelope } from '../../lib/sim/slack-events.js';
import { startTunnel, type Tunnel } from '../../lib/sim/tunnel.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, SECRET, settle, startCopy, type RunningCopy } from '../support/copies.js';

describe('the edge in front of two real copies sharing one Redis', () => {
  const fx = useRedisBridge();
  let api: FakeWebApi;
  let hub: RunningCopy;
  let cloud: RunningCopy;
  let tunnel: Tunnel;
  let edge: Server;
  let router: EdgeRouter;
  let edgeUrl: string;

  beforeAll(async () => {
    api = await startFakeWebApi();
    const upstash = { url: fx.bridge.url, token: fx.bridge.token };
    hub = await startCopy({ role: 'hub', webApiUrl: api.url, upstash });
    cloud = await startCopy({ role: 'cloud', webApiUrl: api.url, upstash });
    tunnel = await startTunnel(hub.url);
    router = createEdgeRouter({
      settings: parseEdgeSettings({ HUB_URL: tunnel.url, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: SECRET }),
    });
    edge = serveFetchHandler(router.handle);
    await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
    edgeUrl = `http://127.0.0.1:${(edge.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(async () => {
    edge?.closeAllConnections();
    edge?.close();
    await tunnel?.close();
    await hub?.stop();
    await cloud?.stop();
    await api?.close();
  });

  const repliesTo = (eventId: string) =>
    api.posts().filter((c) => JSON.parse(c.params.metadata ?? '{}').event_payload?.event_id === eventId);

  it('a hub alive but slower than the edge\'s timeout gives one reply, not two', async () => {
    tunnel.mode = 'slow';
    tunnel.slowMs = 2000;
    try {
      const response = await deliver(edgeUrl, mentionEnvelope({ eventId: 'Ev-slow-hub', ts: '1700000001.000100' }), { signingSecret: SECRET });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(response.headers.get('x-autohub-claim')).toBe('duplicate');
      await eventually(() => repliesTo('Ev-slow-hub').length > 0, 'the hub\'s reply');
      await settle(500);
      expect(repliesTo('Ev-slow-hub')).toHaveLength(1);
      expect(repliesTo('Ev-slow-hub')[0]!.params.text).toMatch(/the hub/);
    } finally {
      tunnel.mode = 'pass';
    }
  });

  it('a cut tunnel (530) sends the turn to the cloud copy, which answers once', async () => {
    tunnel.mode = 'cut';
    try {
      const response = await deliver(edgeUrl, mentionEnvelope({ eventId: 'Ev-cut', ts: '1700000001.000200' }), { signingSecret: SECRET });
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(response.headers.get('x-autohub-claim')).toBe('claimed');
      await eventually(() => repliesTo('Ev-cut').length > 0, 'the cloud reply');
      await settle();
      expect(repliesTo('Ev-cut')).toHaveLength(1);
      expect(repliesTo('Ev-cut')[0]!.params.text).toMatch(/the cloud copy/);
    } finally {
      tunnel.mode = 'pass';
    }
  });
});
