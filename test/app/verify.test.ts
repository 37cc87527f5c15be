import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVerify } from '../../app/cli/verify.js';
import { createEdgeRouter, parseEdgeSettings } from '../../lib/edge/index.js';
import { serveFetchHandler } from '../../lib/edge/serve-node.js';
import { startFakeWebApi, type FakeWebApi } from '../../lib/sim/fake-web-api.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { SECRET, startCopy, type RunningCopy } from '../support/copies.js';

function capture() {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: { log: (s: string) => lines.push(s), error: (s: string) => errors.push(s) } as unknown as Console };
}

describe('npm run verify against hub, cloud and edge on loopback', () => {
  const fx = useRedisBridge();
  let api: FakeWebApi;
  let hub: RunningCopy;
  let cloud: RunningCopy;
  let edge: Server;
  let edgeUrl: string;

  beforeAll(async () => {
    api = await startFakeWebApi();
    const upstash = { url: fx.bridge.url, token: fx.bridge.token };
    hub = await startCopy({ role: 'hub', webApiUrl: api.url, upstash });
    cloud = await startCopy({ role: 'cloud', webApiUrl: api.url, upstash });
    const router = createEdgeRouter({ settings: parseEdgeSettings({ HUB_URL: hub.url, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: SECRET }) });
    edge = serveFetchHandler(router.handle);
    await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
    edgeUrl = `http://127.0.0.1:${(edge.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    edge?.closeAllConnections();
    edge?.close();
    await hub?.stop();
    await api?.close();
  });

  it('is green when everything is up, says which copy served each delivery, and posts nothing to Slack', async () => {
    const c = capture();
    const code = await runVerify(['--edge', edgeUrl, '--hub', hub.url, '--cloud', cloud.url], { SLACK_SIGNING_SECRET: SECRET }, c.out);
    expect(c.errors).toEqual([]);
    expect(code).toBe(0);
    const text = c.lines.join('\n');
    expect(text).toMatch(/first delivery through the edge +200 +route hub +served by hub \(hub-test\) +claim claimed/);
    expect(text).toMatch(/its retry .* +200 +route hub +served by hub \(hub-test\) +claim duplicate/);
    expect(text).toMatch(/retry of the hub's delivery, to the cloud copy +200 .*served by cloud \(cloud-test\) +claim duplicate/);
    expect(text).toMatch(/first delivery straight to the cloud copy +200 .*claim claimed/);
    expect(text).toMatch(/cloud +200 +ok +store upstash ok/);
    expect(api.posts()).toHaveLength(0);
    expect(api.calls.filter((x) => x.method === 'auth.test')).toHaveLength(0);
  });

  it('is a usage error without the signing secret or the edge', async () => {
    const c = capture();
    expect(await runVerify(['--edge', edgeUrl], {}, c.out)).toBe(2);
    expect(c.errors[0]).toMatch(/set SLACK_SIGNING_SECRET/);
    expect(await runVerify(['--hub', hub.url], { SLACK_SIGNING_SECRET: SECRET }, c.out)).toBe(2);
    expect(c.errors[1]).toMatch(/--edge URL is required/);
  });

  it('is red, naming the cloud copy, when the cloud copy is down', async () => {
    const cloudUrl = cloud.url;
    await cloud.stop();
    const c = capture();
    const code = await runVerify(['--edge', edgeUrl, '--hub', hub.url, '--cloud', cloudUrl], { SLACK_SIGNING_SECRET: SECRET }, c.out);
    expect(code).toBe(1);
    expect(c.errors.length).toBeGreaterThan(0);
    expect(c.errors.every((line) => line.startsWith('FAIL cloud: '))).toBe(true);
    expect(c.errors.join('\n')).toMatch(/FAIL cloud: health answered unreachable/);
  });
});
