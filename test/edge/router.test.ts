import { afterEach, describe, expect, it } from 'vitest';
import { createEdgeRouter, parseEdgeSettings, type EdgeRouter } from '../../lib/edge/index.js';
import { ConfigError } from '../../lib/errors/index.js';
import { signedHeaders } from '../../lib/slack/index.js';
import { HINT_EVENT_TYPE, LEASE_HEADER } from '../../lib/synthetic/index.js';
import { CLOSED_URL, resetFakeCopy, type FakeCopy } from '../support/fake-copy.js';
import { useFakeCopies, useFakeCopy } from '../support/fixtures.js';

const SECRET = 'edge-secret';
const BODY = JSON.stringify({ type: 'event_callback', event_id: 'Ev1', team_id: 'T1', event: { type: 'app_mention', ts: '1.1', channel: 'C1' } });

describe('the edge router on Node, against loopback copies, on a fixed clock', () => {
  const { hub, cloud } = useFakeCopies();
  let clock = Date.now();
  const now = () => clock;

  const router = (env: Record<string, string> = {}, log?: (event: string, fields: Record<string, unknown>) => void): EdgeRouter =>
    createEdgeRouter({
      log,
      settings: parseEdgeSettings({
        HUB_URL: hub.url,
        CLOUD_URL: cloud.url,
        EDGE_HUB_TIMEOUT_MS: '400',
        EDGE_CLOUD_TIMEOUT_MS: '400',
        EDGE_PROBE_TIMEOUT_MS: '200',
        EDGE_BUDGET_MS: '1000',
        SLACK_SIGNING_SECRET: SECRET,
        ...env,
      }),
      // The clock decides down marks; real time still runs the timeouts.
      now,
    });

  async function delivery(retryNum?: number): Promise<Request> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(await signedHeaders(SECRET, BODY, clock)),
      ...(retryNum ? { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_timeout' } : {}),
    };
    return new Request('https://edge.example.com/slack/events', { method: 'POST', headers, body: BODY });
  }

  const eventsTo = (copy: FakeCopy) => copy.received.filter((r) => r.path === '/slack/events');

  it("a first delivery goes to the hub with the body and Slack's headers unchanged", async () => {
    const request = await delivery();
    const signature = request.headers.get('x-slack-signature');
    const response = await router().handle(request);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-route')).toBe('hub');
    expect(response.headers.get('x-autohub-instance')).toBe('hub');
    expect(eventsTo(hub)).toHaveLength(1);
    expect(eventsTo(hub)[0]!.body).toBe(BODY);
    expect(eventsTo(hub)[0]!.headers['x-slack-signature']).toBe(signature);
    expect(eventsTo(cloud)).toHaveLength(0);
  });

  it.each([
    ['530 (tunnel connector down, error 1033)', () => (hub.events = 530)],
    ['502 (connector up, app refusing)', () => (hub.events = 502)],
    ['503', () => (hub.events = 503)],
    ['a hang past the hub timeout', () => (hub.events = 'hang')],
  ])('a hub answering %s sends the delivery to the cloud copy', async (_, fault) => {
    fault();
    const r = router();
    const response = await r.handle(await delivery());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
    expect(eventsTo(cloud)).toHaveLength(1);
    expect(eventsTo(cloud)[0]!.body).toBe(BODY);
    expect(r.hub.downAt).toBe(clock);
  });

  it('a hub nobody listens on sends the delivery to the cloud copy', async () => {
    const r = createEdgeRouter({ settings: parseEdgeSettings({ HUB_URL: CLOSED_URL, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: SECRET }), now });
    const response = await r.handle(await delivery());
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
  });

  it('a 4xx from the hub (other than a refusal to verify) is the answer: it is not sent to the cloud copy', async () => {
    hub.events = 415;
    const response = await router().handle(await delivery());
    expect(response.status).toBe(415);
    expect(response.headers.get('x-autohub-route')).toBe('hub');
    expect(eventsTo(cloud)).toHaveLength(0);
  });

  it('a replica gone behind the balancer (502) gets one more try on the cloud leg, which another replica serves', async () => {
    hub.events = 530;
    cloud.next = [502];
    const response = await router().handle(await delivery());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
    expect(eventsTo(cloud)).toHaveLength(2);
  });

  it('when the cloud forward fails too, Slack gets 503 naming the failover target, never a blind 200', async () => {
    hub.events = 530;
    cloud.events = 500;
    const response = await router().handle(await delivery());
    expect(response.status).toBe(503);
    expect(response.headers.get('x-autohub-failover-target')).toBe('cloud');
    expect(response.headers.get('x-slack-no-retry')).toBeNull();
    expect(response.headers.get('x-autohub-route')).toBe('none');
  });

  it('seed 000 regression: hub 530, cloud 500 once, then the retry 60 s later reaches the cloud copy', async () => {
    const r = router();
    hub.events = 530;
    hub.health = 530;
    cloud.events = 500;
    const first = await r.handle(await delivery());
    expect(first.status).toBe(503);

    cloud.events = 200;
    cloud.received.length = 0;
    clock += 60_000;
    const retry = await r.handle(await delivery(2));
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-autohub-route')).toBe('cloud');
    // The old outcome, {"retryStatus":200,"retryCalls":[]}, is impossible: the retry was forwarded.
    expect(eventsTo(cloud)).toHaveLength(1);
    expect(hub.received.filter((x) => x.path === '/slack/health')).toHaveLength(1);
  });

  it.each([
    [1, 0],
    [2, 60_000],
    [3, 300_000],
  ])('with the hub down, Slack retry %i (after %i ms) reaches the cloud copy', async (retryNum, after) => {
    const r = router();
    hub.events = 530;
    hub.health = 530;
    cloud.events = 500;
    await r.handle(await delivery());
    cloud.events = 200;
    cloud.received.length = 0;
    clock += after;
    const response = await r.handle(await delivery(retryNum));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
    expect(eventsTo(cloud)).toHaveLength(1);
  });

  it("the retry path's probe carries the health token when the edge has one", async () => {
    hub.events = 530;
    const r = router({ AUTOHUB_HEALTH_TOKEN: 'edge-health-token-0123' });
    await r.handle(await delivery(1));
    const probe = hub.received.find((x) => x.path === '/slack/health');
    expect(probe?.headers.authorization).toBe('Bearer edge-health-token-0123');
  });

  it('a retry whose probe finds the hub up goes to the hub, whose claim decides', async () => {
    const response = await router().handle(await delivery(1));
    expect(response.headers.get('x-autohub-route')).toBe('hub');
    expect(hub.received.map((x) => x.path)).toEqual(['/slack/health', '/slack/events']);
  });

  it('a retry whose probe hangs goes to the cloud copy, the probe ended by its own timeout (before: the retry waited on the hung hub)', async () => {
    hub.health = 'hang';
    const logged: [string, Record<string, unknown>][] = [];
    const response = await router({}, (event, fields) => logged.push([event, fields])).handle(await delivery(1));
    expect(response.headers.get('x-autohub-route')).toBe('cloud');
    expect(logged).toContainEqual(['edge.routed', expect.objectContaining({ route: 'cloud', why: 'probe timeout' })]);
    expect(hub.received.map((x) => x.path)).toEqual(['/slack/health']);
  });

  it("both copies hung: each leg ends by its timeout and Slack gets a 503 to retry (before: the edge waited on them past Slack's 3 s)", async () => {
    hub.events = 'hang';
    cloud.events = 'hang';
    const logged: [string, Record<string, unknown>][] = [];
    const response = await router({}, (event, fields) => logged.push([event, fields])).handle(await delivery());
    expect(response.status).toBe(503);
    // The cloud leg timed out (not refused, not unreachable), and was not tried a second time: the budget is spent.
    expect(logged).toContainEqual(['edge.failover_failed', expect.objectContaining({ why: 'hub timeout', cloud: 'timeout' })]);
    expect(cloud.received.filter((x) => x.path === '/slack/events')).toHaveLength(1);
  });

  describe('with SLACK_SIGNING_SECRET set', () => {
    it('a forged retry (unsigned, X-Slack-Retry-Num 2) probes nothing and marks nothing down', async () => {
      const r = router({ SLACK_SIGNING_SECRET: SECRET });
      const forged = new Request('https://edge.example.com/slack/events', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-slack-retry-num': '2', 'x-slack-retry-reason': 'http_timeout' },
        body: BODY,
      });
      expect((await r.handle(forged)).status).toBe(401);
      expect(hub.received).toHaveLength(0);
      expect(r.hub.toJSON()).toMatchObject({ state: 'unknown' });
    });

    it('an unsigned delivery gets 401 and never costs the hub anything', async () => {
      const r = router({ SLACK_SIGNING_SECRET: SECRET });
      const response = await r.handle(new Request('https://edge.example.com/slack/events', { method: 'POST', body: BODY }));
      expect(response.status).toBe(401);
      expect(response.headers.get('x-autohub-route')).toBe('none');
      expect(hub.received).toHaveLength(0);
    });

    it('a signed delivery passes', async () => {
      const response = await router({ SLACK_SIGNING_SECRET: SECRET }).handle(await delivery());
      expect(response.status).toBe(200);
    });

    it.each([401, 403])('a hub refusing with %i (a stale secret) fails over: the cloud answers, and retries skip the hub', async (status) => {
      hub.events = status;
      const r = router({ SLACK_SIGNING_SECRET: SECRET, AUTOHUB_HEALTH_TOKEN: 'edge-health-token-0123' });
      const response = await r.handle(await delivery());
      expect(response.status).toBe(200);
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(eventsTo(cloud)[0]!.headers['x-autohub-failover']).toBe(`hub refusing (${status})`);
      const health = await (
        await r.handle(new Request('https://edge.example.com/slack/health', { headers: { authorization: 'Bearer edge-health-token-0123' } }))
      ).json();
      // Reachable, but it cannot check a signature: refusing, not merely down.
      expect(health.hub).toMatchObject({ state: 'refusing', reason: `hub refusing (${status})` });
      const before = eventsTo(hub).length;
      const retry = await r.handle(await delivery(1));
      expect(retry.headers.get('x-autohub-route')).toBe('cloud');
      expect(eventsTo(hub)).toHaveLength(before);
    });

    it.each([401, 403])('a cloud copy answering %i to a delivery the edge verified is refusing in the health view, not up', async (status) => {
      hub.events = 530;
      cloud.events = status;
      const r = router({ SLACK_SIGNING_SECRET: SECRET, AUTOHUB_HEALTH_TOKEN: 'edge-health-token-0123' });
      await r.handle(await delivery());
      const health = await (
        await r.handle(new Request('https://edge.example.com/slack/health', { headers: { authorization: 'Bearer edge-health-token-0123' } }))
      ).json();
      expect(health.cloud).toMatchObject({ state: 'refusing', reason: `cloud refusing (${status})` });
      // Once it serves again it is up.
      cloud.events = 200;
      await r.handle(await delivery());
      expect(r.cloud.state).toBe('up');
    });

    it('each signature failure is logged with a running count (no body, no secret) and the count is in the health body', async () => {
      const lines: Array<{ event: string; fields: Record<string, unknown> }> = [];
      const r = router({ SLACK_SIGNING_SECRET: SECRET, AUTOHUB_HEALTH_TOKEN: 'edge-health-token-0123' }, (event, fields) => lines.push({ event, fields }));
      const stale = { 'content-type': 'application/json', ...(await signedHeaders('a-stale-secret', BODY, clock)) };
      for (let i = 0; i < 3; i++) {
        expect((await r.handle(new Request('https://edge.example.com/slack/events', { method: 'POST', headers: stale, body: BODY }))).status).toBe(401);
      }
      const failed = lines.filter((l) => l.event === 'edge.signature_failed');
      expect(failed.map((l) => l.fields)).toEqual([
        { reason: 'mismatch', count: 1 },
        { reason: 'mismatch', count: 2 },
        { reason: 'mismatch', count: 3 },
      ]);
      expect(JSON.stringify(lines)).not.toContain('Ev1');
      const health = await (
        await r.handle(new Request('https://edge.example.com/slack/health', { headers: { authorization: 'Bearer edge-health-token-0123' } }))
      ).json();
      expect(health.signature_failures).toBe(3);
      // The count is the owner's to read: the status alone to anyone else.
      expect(await (await r.handle(new Request('https://edge.example.com/slack/health'))).json()).toEqual({ status: 'ok' });
    });

    it('an unsigned ssl_check (Slack testing a slash command URL) gets 200 from the edge itself, forwarding nothing', async () => {
      const r = router({ SLACK_SIGNING_SECRET: SECRET });
      const response = await r.handle(
        new Request('https://edge.example.com/slack/events', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'ssl_check=1&token=legacy',
        }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('x-autohub-route')).toBe('none');
      expect(hub.received).toHaveLength(0);
      expect(cloud.received).toHaveLength(0);
    });

    it.each([
      ['ssl_check beside a slash command', 'application/x-www-form-urlencoded', 'ssl_check=1&command=%2Fautohub&trigger_id=t1'],
      ['ssl_check beside an interaction payload', 'application/x-www-form-urlencoded', 'ssl_check=1&payload=%7B%7D'],
      ['ssl_check other than 1', 'application/x-www-form-urlencoded', 'ssl_check=true'],
      ['ssl_check in a JSON body', 'application/json', '{"ssl_check":"1"}'],
    ])('an unsigned %s is refused with 401, forwarding nothing', async (_, contentType, body) => {
      const response = await router({ SLACK_SIGNING_SECRET: SECRET }).handle(
        new Request('https://edge.example.com/slack/events', { method: 'POST', headers: { 'content-type': contentType }, body }),
      );
      expect(response.status).toBe(401);
      expect(hub.received).toHaveLength(0);
    });

    it("client-set x-autohub-* headers are dropped: the hub never sees them, the cloud sees only the edge's own failover reason", async () => {
      const r = router({ SLACK_SIGNING_SECRET: SECRET });
      const forged = async () => {
        const request = await delivery();
        request.headers.set('x-autohub-failover', '<https://evil.example|click here>');
        request.headers.set('x-autohub-anything', 'x');
        return request;
      };
      await r.handle(await forged());
      expect(Object.keys(eventsTo(hub)[0]!.headers).filter((h) => h.startsWith('x-autohub-'))).toEqual([]);
      hub.events = 530;
      await r.handle(await forged());
      const headers = eventsTo(cloud)[0]!.headers;
      expect(Object.keys(headers).filter((h) => h.startsWith('x-autohub-'))).toEqual(['x-autohub-failover']);
      expect(headers['x-autohub-failover']).toBe('hub HTTP 530');
    });

    it('a hub with a backlog (503 with x-autohub-busy) hands the delivery to the cloud copy and is not marked down', async () => {
      hub.events = 503;
      hub.eventHeaders = { 'x-autohub-busy': '70' };
      const r = router({ SLACK_SIGNING_SECRET: SECRET });
      const response = await r.handle(await delivery());
      expect(response.status).toBe(200);
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(eventsTo(cloud)[0]!.headers['x-autohub-failover']).toBe('hub busy (70 waiting)');
      expect(r.hub.downAt).toBeUndefined();
      // Its backlog drained: the next delivery, a retry included, is the hub's again (no probe, no down mark to skip it).
      hub.events = 200;
      hub.eventHeaders = {};
      const retry = await r.handle(await delivery(1));
      expect(retry.headers.get('x-autohub-route')).toBe('hub');
    });

    it('a cloud ack under a lease hints a busy hub (alive, it may outlive that turn) and never a hub marked down (the reason the cloud served)', async () => {
      cloud.eventHeaders = { [LEASE_HEADER]: '10000' };
      const hints = () => eventsTo(hub).filter((r) => r.body.includes(HINT_EVENT_TYPE));
      // Every hint this router starts goes through ctx, as in the Worker: awaited, nothing is left in flight.
      const started: Promise<unknown>[] = [];
      const ctx = { waitUntil: (task: Promise<unknown>) => void started.push(task) };
      const r = router({ SLACK_SIGNING_SECRET: SECRET });
      hub.events = 503;
      hub.eventHeaders = { 'x-autohub-busy': '3' };
      expect((await r.handle(await delivery(), ctx)).headers.get('x-autohub-route')).toBe('cloud');
      await Promise.all(started);
      expect(hints()).toHaveLength(1);
      hub.eventHeaders = {};
      started.length = 0;
      expect((await r.handle(await delivery(), ctx)).headers.get('x-autohub-route')).toBe('cloud');
      expect(r.hub.downAt).toBeDefined();
      expect(started).toHaveLength(0);
      expect(hints()).toHaveLength(1);
    });

    it('a plain 503 from the hub (no x-autohub-busy) is a failure: the hub is marked down', async () => {
      hub.events = 503;
      const r = router({ SLACK_SIGNING_SECRET: SECRET });
      const response = await r.handle(await delivery());
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(r.hub.downAt).toBeDefined();
    });

    it('a 400 from the hub is still a verdict on the request, not a refusing hub', async () => {
      hub.events = 400;
      const response = await router({ SLACK_SIGNING_SECRET: SECRET }).handle(await delivery());
      expect(response.status).toBe(400);
      expect(eventsTo(cloud)).toHaveLength(0);
    });
  });

  describe("a slash command's answer that comes back after its leg's timeout", () => {
    // Stands in for Slack's response_url (the edge takes loopback http for it, as the drill's simulated Slack).
    const slack = useFakeCopy('response-url');
    afterEach(() => resetFakeCopy(slack));
    const JSON_ANSWER = { 'content-type': 'application/json' };

    async function command(): Promise<Request> {
      const body = new URLSearchParams({ command: '/deploy', text: 'prod', trigger_id: 't1', response_url: `${slack.url}/commands/T1/1/x` }).toString();
      const headers = { 'content-type': 'application/x-www-form-urlencoded', ...(await signedHeaders(SECRET, body, clock)) };
      return new Request('https://edge.example.com/slack/events', { method: 'POST', headers, body });
    }

    /** Runs a delivery; resolves with Slack's answer once the work the edge left for after it (ctx.waitUntil) is done. */
    async function handled(request: Request): Promise<{ response: Response; after: number }> {
      const after: Promise<unknown>[] = [];
      const response = await router().handle(request, { waitUntil: (p) => void after.push(p) });
      await Promise.all(after);
      return { response, after: after.length };
    }

    it('reaches the person: the hub answered in time by its clock, the tunnel brought it back late, and the edge posts it to the response_url (before: read by nobody, the cloud copy found the command claimed)', async () => {
      hub.delayMs = 600;
      hub.eventHeaders = JSON_ANSWER;
      hub.eventBody = JSON.stringify({ text: 'deployed', response_type: 'ephemeral' });
      // The cloud copy finds the command claimed: an empty ack.
      cloud.eventBody = '';
      const { response } = await handled(await command());
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(slack.received).toHaveLength(1);
      expect(slack.received[0]!.path).toBe('/commands/T1/1/x');
      expect(JSON.parse(slack.received[0]!.body)).toEqual({ text: 'deployed', response_type: 'ephemeral' });
    });

    it("is not posted when Slack's answer was a copy's own message (the cloud copy ran it too: a second post would be a second answer)", async () => {
      hub.delayMs = 600;
      hub.eventHeaders = JSON_ANSWER;
      hub.eventBody = JSON.stringify({ text: 'deployed' });
      cloud.eventBody = JSON.stringify({ text: 'deployed' });
      const { response, after } = await handled(await command());
      expect(await response.text()).toBe(JSON.stringify({ text: 'deployed' }));
      expect(after).toBe(0);
      expect(slack.received).toHaveLength(0);
    });

    it('is not posted when the late answer is empty (the copy acked at its deadline and answers by the response_url itself)', async () => {
      hub.delayMs = 600;
      hub.eventBody = '';
      cloud.eventBody = '';
      const { after } = await handled(await command());
      expect(after).toBe(1);
      expect(slack.received).toHaveLength(0);
    });

    it("an event's leg is cut at its timeout, not read late (an event's answer carries nothing)", async () => {
      hub.delayMs = 600;
      const { response, after } = await handled(await delivery());
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(after).toBe(0);
    });
  });

  it('answers other paths with 404, its health with the status alone, and its own view only with the token', async () => {
    const r = router({ SLACK_SIGNING_SECRET: SECRET, AUTOHUB_HEALTH_TOKEN: 'edge-health-token-0123' });
    expect((await r.handle(new Request('https://edge.example.com/other'))).status).toBe(404);
    expect((await r.handle(new Request('https://edge.example.com/slack/events'))).status).toBe(405);
    hub.events = 530;
    await r.handle(await delivery());
    expect(await (await r.handle(new Request('https://edge.example.com/slack/health'))).json()).toEqual({ status: 'ok' });
    const health = await r.handle(new Request('https://edge.example.com/slack/health', { headers: { authorization: 'Bearer edge-health-token-0123' } }));
    const body = await health.json();
    expect(body).toMatchObject({ status: 'ok', role: 'edge', hub: { state: 'down', reason: 'hub HTTP 530' }, cloud: { state: 'up' } });
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  it('a bad setting names the variable', () => {
    expect(() => parseEdgeSettings({ CLOUD_URL: 'https://x' })).toThrow(ConfigError);
    expect(() => parseEdgeSettings({ HUB_URL: 'https://h', CLOUD_URL: 'https://x' })).toThrow(/^SLACK_SIGNING_SECRET is not set/);
    expect(() => parseEdgeSettings({ HUB_URL: 'nope', CLOUD_URL: 'https://x' })).toThrow(/^HUB_URL is invalid/);
    expect(() => parseEdgeSettings({ HUB_URL: 'https://h', CLOUD_URL: 'https://x', EDGE_HUB_TIMEOUT_MS: '0' })).toThrow(/^EDGE_HUB_TIMEOUT_MS is invalid/);
  });
});
