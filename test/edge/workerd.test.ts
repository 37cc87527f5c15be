import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../lib/slack/index.js';
import { eventually } from '../support/copies.js';
import { CLOSED_URL } from '../support/fake-copy.js';
import { useFakeCopies, useFakeCopy } from '../support/fixtures.js';
import { bundleWorker, WORKER_COMPATIBILITY_DATE } from '../support/worker-bundle.js';

const SECRET = 'edge-secret';
const BODY = JSON.stringify({ type: 'event_callback', event_id: 'EvW', team_id: 'T1', event: { type: 'app_mention', ts: '1.1', channel: 'C1' } });

describe('the Worker entry in the real Workers runtime (miniflare workerd)', () => {
  const { hub, cloud } = useFakeCopies();
  // Stands in for a slash command's response_url.
  const responseUrl = useFakeCopy('response-url');
  let mf: Miniflare;
  let deadHub: Miniflare;
  let unsigned: Miniflare;
  /** What the secret-less Worker wrote to its logs (workerd's stdout and stderr): only its owner reads them. */
  let unsignedLog = '';

  beforeAll(async () => {
    const script = await bundleWorker();
    const common = {
      modules: true,
      script,
      compatibilityDate: WORKER_COMPATIBILITY_DATE,
    };
    const timeouts = { EDGE_LOG: 'off', EDGE_HUB_TIMEOUT_MS: '500', EDGE_CLOUD_TIMEOUT_MS: '500', EDGE_PROBE_TIMEOUT_MS: '200', EDGE_BUDGET_MS: '1200' };
    mf = new Miniflare({ ...common, bindings: { HUB_URL: hub.url, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: SECRET, ...timeouts } });
    deadHub = new Miniflare({ ...common, bindings: { HUB_URL: CLOSED_URL, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: SECRET, ...timeouts } });
    unsigned = new Miniflare({
      ...common,
      bindings: { HUB_URL: hub.url, CLOUD_URL: cloud.url, ...timeouts },
      handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
        stdout.on('data', (d: Buffer) => (unsignedLog += d));
        stderr.on('data', (d: Buffer) => (unsignedLog += d));
      },
    });
    await mf.ready;
    await deadHub.ready;
    await unsigned.ready;
  }, 60_000);
  afterAll(async () => {
    await mf?.dispose();
    await deadHub?.dispose();
    await unsigned?.dispose();
  });

  const post = async (worker: Miniflare, retryNum?: number) =>
    worker.dispatchFetch('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(await signedHeaders(SECRET, BODY, Date.now())),
        ...(retryNum ? { 'x-slack-retry-num': String(retryNum) } : {}),
      },
      body: BODY,
    });

  it('forwards a first delivery to the hub', async () => {
    const response = await post(mf);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-route')).toBe('hub');
    expect(hub.received[0]!.body).toBe(BODY);
  });

  it('takes a 530 from the tunnel as failover and forwards to the cloud copy', async () => {
    hub.events = 530;
    const response = await post(mf);
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
    expect(cloud.received.filter((r) => r.path === '/slack/events')).toHaveLength(1);
  });

  it("fires its own timeout on a hung hub in workerd and fails over, telling the cloud copy why (before: Slack's 3 s ran out first)", async () => {
    hub.events = 'hang';
    const response = await post(mf);
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
    // 'hub timeout', not 'hub unreachable': the leg's AbortSignal.timeout fired inside the Workers runtime.
    expect(cloud.received.filter((r) => r.path === '/slack/events').map((r) => r.headers['x-autohub-failover'])).toEqual(['hub timeout']);
  });

  it('a Worker deployed without its signing secret refuses to route: 503 "not configured" (Slack retries), the missing secret only in its log', async () => {
    const response = await post(unsigned);
    expect(response.status).toBe(503);
    expect(response.headers.get('x-autohub-route')).toBe('none');
    const text = await response.text();
    expect(text).toContain('autohub edge: not configured yet');
    expect(text).not.toContain('SLACK_SIGNING_SECRET');
    expect(hub.received).toHaveLength(0);
    await eventually(() => unsignedLog.includes('edge.config_invalid'), 'the missing secret logged');
    expect(unsignedLog).toContain('SLACK_SIGNING_SECRET is not set');
    expect(unsignedLog).toContain('npx wrangler secret put SLACK_SIGNING_SECRET');
  });

  it('refuses a body over the limit with 413, forwarding nothing', async () => {
    const big = 'x'.repeat(1_048_577);
    const response = await mf.dispatchFetch('https://edge.example.com/slack/events', { method: 'POST', body: big });
    expect(response.status).toBe(413);
    await response.arrayBuffer();
    expect(hub.received).toHaveLength(0);
  });

  it('refuses each of four signed 6 MB bodies sent chunked (no length), forwarding nothing, and routes the next delivery as before', async () => {
    const big = new TextEncoder().encode(JSON.stringify({ pad: 'x'.repeat(6 * 1024 * 1024) }));
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const chunked = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < big.length; at += 65_536) controller.enqueue(big.subarray(at, at + 65_536));
          controller.close();
        },
      });
      // workerd answers 413 as soon as the limit is passed and closes the connection without reading the rest:
      // the local client then sees either that 413 or a reset of its unfinished write (ECONNRESET), by timing.
      // Either way the body was refused; what must never happen is a forward or a Worker that stops answering.
      const outcome = await mf
        .dispatchFetch('https://edge.example.com/slack/events', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(await signedHeaders(SECRET, big, Date.now())) },
          body: chunked,
          duplex: 'half',
        } as never)
        .then(async (response) => {
          await response.arrayBuffer();
          return String(response.status);
        })
        .catch((error: unknown) => ((error as { cause?: { code?: string } }).cause?.code === 'ECONNRESET' ? 'reset' : `error: ${String(error)}`));
      outcomes.push(outcome);
    }
    expect(outcomes.every((o) => o === '413' || o === 'reset')).toBe(true);
    expect(hub.received).toHaveLength(0);
    expect((await post(mf)).headers.get('x-autohub-route')).toBe('hub');
  });

  it('fails over from a hub nobody listens on (workerd words the error its own way)', async () => {
    const response = await post(deadHub);
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
  });

  it('answers 503 with the failover target when the cloud forward fails too', async () => {
    hub.events = 530;
    cloud.events = 500;
    const response = await post(mf);
    expect(response.status).toBe(503);
    expect(response.headers.get('x-autohub-failover-target')).toBe('cloud');
  });

  it('answers an unsigned ssl_check itself with 200, forwarding nothing', async () => {
    const response = await mf.dispatchFetch('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'ssl_check=1&token=legacy',
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(hub.received).toHaveLength(0);
    expect(cloud.received).toHaveLength(0);
  });

  it('drops a client-set x-autohub-failover before forwarding', async () => {
    const response = await mf.dispatchFetch('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await signedHeaders(SECRET, BODY, Date.now())), 'x-autohub-failover': 'forged' },
      body: BODY,
    });
    expect(response.headers.get('x-autohub-route')).toBe('hub');
    expect(hub.received[0]!.headers['x-autohub-failover']).toBeUndefined();
  });

  it("posts a command's answer the hub gave after its leg's timeout to the response_url, after Slack has the edge's answer (ctx.waitUntil in workerd)", async () => {
    hub.delayMs = 800;
    hub.eventHeaders = { 'content-type': 'application/json' };
    hub.eventBody = JSON.stringify({ text: 'deployed' });
    cloud.eventBody = '';
    const body = new URLSearchParams({ command: '/deploy', text: 'prod', trigger_id: 'tw', response_url: `${responseUrl.url}/commands/T1/2/y` }).toString();
    const response = await mf.dispatchFetch('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(await signedHeaders(SECRET, body, Date.now())) },
      body,
    });
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
    expect(await response.text()).toBe('');
    await eventually(() => responseUrl.received.length > 0, "the hub's late answer at the response_url");
    expect(responseUrl.received.map((r) => JSON.parse(r.body))).toEqual([{ text: 'deployed' }]);
  });

  it('stops an unsigned delivery at the edge', async () => {
    const response = await mf.dispatchFetch('https://edge.example.com/slack/events', { method: 'POST', body: BODY });
    expect(response.status).toBe(401);
    expect(hub.received).toHaveLength(0);
  });
});
