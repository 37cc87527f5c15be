/** The Worker (real workerd, miniflare) hints the copy that did not ack, through ctx.waitUntil, signed as Slack signs. */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignature, signedHeaders } from '../../lib/slack/index.js';
import { HINT_EVENT_TYPE, LEASE_HEADER } from '../../lib/synthetic/index.js';
import { eventually } from '../support/copies.js';
import { useFakeCopy } from '../support/fixtures.js';
import { bundleWorker, WORKER_COMPATIBILITY_DATE } from '../support/worker-bundle.js';

const SECRET = 'edge-secret';
const mention = (id: string) =>
  JSON.stringify({ type: 'event_callback', event_id: id, team_id: 'T1', event: { type: 'app_mention', ts: '1.1', channel: 'C1' } });

describe('the Worker hints the other copy after the hub acks a leased turn', () => {
  const hub = useFakeCopy('hub');
  const cloud = useFakeCopy('cloud');
  // The Worker in front of the two stand-ins.
  let mf: Miniflare;
  beforeAll(async () => {
    mf = new Miniflare({
      modules: true,
      script: await bundleWorker(),
      compatibilityDate: WORKER_COMPATIBILITY_DATE,
      bindings: { HUB_URL: hub.url, CLOUD_URL: cloud.url, SLACK_SIGNING_SECRET: SECRET, EDGE_LOG: 'off' },
    });
    await mf.ready;
  }, 60_000);
  afterAll(async () => {
    await mf?.dispose();
  });

  const post = async (body: string) =>
    mf.dispatchFetch('https://edge.example.com/slack/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await signedHeaders(SECRET, body, Date.now())) },
      body,
    });
  const hints = () => cloud.received.filter((r) => r.path === '/slack/events' && r.body.includes(HINT_EVENT_TYPE));

  it('a hub ack without a lease (a probe, a duplicate) hints nobody; one with a lease sends the cloud copy one signed hint', async () => {
    expect((await post(mention('EvW-nolease'))).headers.get('x-autohub-route')).toBe('hub');
    hub.eventHeaders = { [LEASE_HEADER]: '10000' };
    const response = await post(mention('EvW-lease'));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-route')).toBe('hub');
    await eventually(() => hints().length > 0, 'the hint to reach the cloud copy');
    expect(hints()).toHaveLength(1);
    const hint = hints()[0]!;
    const check = await checkSignature({
      signingSecret: SECRET,
      timestamp: hint.headers['x-slack-request-timestamp'],
      signature: hint.headers['x-slack-signature'],
      body: new TextEncoder().encode(hint.body),
      now: Date.now(),
    });
    expect(check).toEqual({ ok: true });
    // The mention without a lease, sent first, produced none.
    expect(cloud.received.filter((r) => r.body.includes('EvW-'))).toHaveLength(0);
  });
});
