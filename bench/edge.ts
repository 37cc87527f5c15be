/**
 * Section `edge`: the latency the router adds to a delivery, in workerd
 * (miniflare) and on Node, against a direct request to the hub; and the
 * router's CPU time per request against the Workers free plan's 10 ms; and
 * how long a failover takes when the hub hangs, against the timeout meant to
 * end it and Slack's 3 s (the tests show which timeout fired, this the time).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Miniflare } from 'miniflare';
import { build } from 'esbuild';
import { createEdgeRouter, parseEdgeSettings } from '../lib/edge/index.js';
import { serveFetchHandler } from '../lib/edge-node/index.js';
import { signedHeaders } from '../lib/slack/index.js';
import { fmt, printTable, summarize } from './stats.js';

const SECRET = 'bench-secret';
const BODY = JSON.stringify({
  type: 'event_callback',
  event_id: 'EvB',
  team_id: 'T1',
  event: { type: 'app_mention', ts: '1.1', channel: 'C1', text: 'hello' },
});
const N = 1000;

async function sample(send: () => Promise<Response>): Promise<number[]> {
  for (let i = 0; i < 100; i++) await (await send()).arrayBuffer();
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const response = await send();
    await response.arrayBuffer();
    out.push(performance.now() - t);
  }
  return out;
}

export async function benchEdge(): Promise<void> {
  const hub = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'x-autohub-claim': 'claimed' }).end());
  });
  await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
  const hubUrl = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
  const env = { HUB_URL: hubUrl, CLOUD_URL: 'http://127.0.0.1:9', SLACK_SIGNING_SECRET: SECRET };

  const script = (
    await build({ entryPoints: ['app/edge-worker.ts'], bundle: true, format: 'esm', platform: 'neutral', write: false, mainFields: ['module', 'main'] })
  ).outputFiles[0]!.text;
  const mf = new Miniflare({ modules: true, script, compatibilityDate: '2026-07-30', bindings: { ...env, EDGE_LOG: 'off' } });
  // The same hop with no router in it: what miniflare and workerd cost on their own.
  const passThrough = new Miniflare({
    modules: true,
    compatibilityDate: '2026-07-30',
    bindings: env,
    script: `export default { async fetch(request, env) {
      const body = await request.arrayBuffer();
      return fetch(env.HUB_URL + '/slack/events', { method: 'POST', headers: request.headers, body });
    } };`,
  });
  await mf.ready;
  await passThrough.ready;
  const router = createEdgeRouter({ settings: parseEdgeSettings(env) });
  const node = serveFetchHandler(router.handle);
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  const nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}/slack/events`;

  const headers = async () => ({ 'content-type': 'application/json', ...(await signedHeaders(SECRET, BODY, Date.now())) });
  try {
    const h = await headers();
    const direct = summarize(await sample(() => fetch(`${hubUrl}/slack/events`, { method: 'POST', headers: h, body: BODY })));
    const viaNode = summarize(await sample(() => fetch(nodeUrl, { method: 'POST', headers: h, body: BODY })));
    const viaPassThrough = summarize(
      await sample(
        () => passThrough.dispatchFetch('https://edge.example.com/slack/events', { method: 'POST', headers: h, body: BODY }) as unknown as Promise<Response>,
      ),
    );
    const viaWorkerd = summarize(
      await sample(() => mf.dispatchFetch('https://edge.example.com/slack/events', { method: 'POST', headers: h, body: BODY }) as unknown as Promise<Response>),
    );

    // CPU of the router itself: signature check, routing, relaying, with the network answered in-process.
    const cpuRouter = createEdgeRouter({
      settings: parseEdgeSettings(env),
      fetch: async () => new Response(null, { status: 200, headers: { 'x-autohub-claim': 'claimed' } }),
    });
    const requests = await Promise.all(
      Array.from({ length: N }, async () => new Request('https://edge.example.com/slack/events', { method: 'POST', headers: await headers(), body: BODY })),
    );
    for (let i = 0; i < 100; i++) await cpuRouter.handle(new Request('https://e/slack/events', { method: 'POST', headers: h, body: BODY }));
    const before = process.cpuUsage();
    for (const request of requests) await cpuRouter.handle(request);
    const used = process.cpuUsage(before);
    const cpuMs = (used.user + used.system) / 1000 / N;

    printTable(`edge: ${N} signed deliveries, hub answering 200 at once on loopback (ms)`, [
      ['path', 'p50', 'p99', 'added p50', 'added p99'],
      ['direct to the hub (baseline)', fmt(direct.p50, 3), fmt(direct.p99, 3), '-', '-'],
      [
        'through the router in workerd (miniflare)',
        fmt(viaWorkerd.p50, 3),
        fmt(viaWorkerd.p99, 3),
        fmt(viaWorkerd.p50 - direct.p50, 3),
        fmt(viaWorkerd.p99 - direct.p99, 3),
      ],
      [
        'a pass-through Worker in workerd (the hop alone)',
        fmt(viaPassThrough.p50, 3),
        fmt(viaPassThrough.p99, 3),
        fmt(viaPassThrough.p50 - direct.p50, 3),
        fmt(viaPassThrough.p99 - direct.p99, 3),
      ],
      ['  so the router itself adds, in workerd', '', '', fmt(viaWorkerd.p50 - viaPassThrough.p50, 3), fmt(viaWorkerd.p99 - viaPassThrough.p99, 3)],
      [
        'through the router on Node (npm run edge)',
        fmt(viaNode.p50, 3),
        fmt(viaNode.p99, 3),
        fmt(viaNode.p50 - direct.p50, 3),
        fmt(viaNode.p99 - direct.p99, 3),
      ],
    ]);
    printTable('edge: router CPU per delivery (Node, V8 like workerd; network answered in-process)', [
      ['measure', 'ms per request', 'Workers free plan limit', 'share of limit'],
      ['signature check + routing + relay', fmt(cpuMs, 3), '10', `${fmt((cpuMs / 10) * 100, 1)}%`],
    ]);
    await benchFailover(headers);
  } finally {
    await mf.dispose();
    await passThrough.dispose();
    node.closeAllConnections();
    node.close();
    hub.closeAllConnections();
    hub.close();
  }
}

/** A loopback server that answers /slack/events with `events` ('hang': never) and /slack/health likewise. */
async function loopback(events: number | 'hang', health: number | 'hang'): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = req.url?.startsWith('/slack/health') ? health : events;
      if (status !== 'hang') res.writeHead(status, { 'x-autohub-claim': 'claimed' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const FAILOVER_ROUNDS = 5;

/** Each round a fresh router (no down mark carried over), with the default timeouts. */
async function benchFailover(headers: () => Promise<Record<string, string>>): Promise<void> {
  const hung = await loopback('hang', 'hang');
  const cloud = await loopback(200, 200);
  const deadCloud = await loopback('hang', 'hang');
  const time = async (cloudUrl: string, retry: boolean): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < FAILOVER_ROUNDS; i++) {
      const router = createEdgeRouter({ settings: parseEdgeSettings({ HUB_URL: hung.url, CLOUD_URL: cloudUrl, SLACK_SIGNING_SECRET: SECRET }) });
      const request = new Request('https://edge.example.com/slack/events', {
        method: 'POST',
        headers: { ...(await headers()), ...(retry ? { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } : {}) },
        body: BODY,
      });
      const t = performance.now();
      await (await router.handle(request)).arrayBuffer();
      out.push(performance.now() - t);
    }
    return out;
  };
  try {
    const defaults = parseEdgeSettings({ HUB_URL: hung.url, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: SECRET });
    const first = summarize(await time(cloud.url, false));
    const probed = summarize(await time(cloud.url, true));
    const both = summarize(await time(deadCloud.url, false));
    printTable(`edge: failover with the hub hung, default timeouts, ${FAILOVER_ROUNDS} deliveries each (ms to Slack's answer)`, [
      ['case', 'p50', 'p99', 'the timeout meant to end it', "Slack's limit"],
      ['first delivery: hub leg times out, cloud answers', fmt(first.p50, 0), fmt(first.p99, 0), `hub ${defaults.hubTimeoutMs}`, '3000'],
      ['a retry: health probe times out, cloud answers', fmt(probed.p50, 0), fmt(probed.p99, 0), `probe ${defaults.probeTimeoutMs}`, '3000'],
      ['both hung: 503 for Slack to retry', fmt(both.p50, 0), fmt(both.p99, 0), `budget ${defaults.budgetMs}`, '3000'],
    ]);
  } finally {
    hung.close();
    cloud.close();
    deadCloud.close();
  }
}
