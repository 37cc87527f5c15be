/** The edge on Node (`npm run edge`) enforces its body limit while reading: a slow oversized body is refused, not buffered. */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeRouter, parseEdgeSettings } from '../../lib/edge/index.js';
import { serveFetchHandler } from '../../lib/edge-node/index.js';
import { startFakeCopy, type FakeCopy } from '../support/fake-copy.js';

describe('the edge on Node against an oversized body sent slowly', () => {
  let hub: FakeCopy;
  let cloud: FakeCopy;
  let server: ReturnType<typeof serveFetchHandler>;
  let url: string;

  beforeAll(async () => {
    hub = await startFakeCopy('hub');
    cloud = await startFakeCopy('cloud');
    const settings = parseEdgeSettings({ HUB_URL: hub.url, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: 's', EDGE_MAX_BODY_BYTES: '2048' });
    server = serveFetchHandler(createEdgeRouter({ settings }).handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await hub.close();
    await cloud.close();
  });

  it('answers 413 once the limit is passed, while the sender is still sending, and forwards nothing', async () => {
    let sent = 0;
    let stopped = false;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        stopped = true;
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (error) => (stopped ? undefined : reject(error)));
      // 512 bytes every 20 ms, with no Content-Length: 64 KiB if nobody stopped it.
      const tick = () => {
        if (stopped || sent >= 65_536) return void req.end();
        req.write('x'.repeat(512));
        sent += 512;
        setTimeout(tick, 20);
      };
      tick();
    });
    expect(status).toBe(413);
    expect(sent).toBeLessThan(65_536);
    expect(hub.received).toHaveLength(0);
    expect(cloud.received).toHaveLength(0);
  });

  it('a Content-Length over the limit is refused before a byte of the body is read', async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(4096) });
    expect(response.status).toBe(413);
  });
});
