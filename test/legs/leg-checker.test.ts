/**
 * The legs proven continuously: the real edge (Node, real sockets) in front
 * of two real copies on one Redis, each behind a tunnel that can fail; the
 * checker driven by hand under an injected clock, its DMs sent by the real
 * WebClient to the fake Web API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { startTunnel, type Tunnel } from '../../drill/sim/tunnel.js';
import { tellOwners } from '../../app/listeners/tell-owner.js';
import { ownerLine } from '../../app/listeners/announce.js';
import { LegChecker } from '../../lib/legs/index.js';
import { createMemoryLogger } from '../../lib/log/index.js';
import { statusPage } from '../../lib/status/index.js';
import { PROBE_EVENT_TYPE, signedSynthetic } from '../../lib/synthetic/index.js';
import { eventually, SECRET, startCopy } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { LEGS_LOCK_KEY, STATUS_KEYS } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { startNodeEdge, type NodeEdge } from './node-edge.js';

const OWNER = 'U0OWNER';

describe('the legs proven continuously through the edge', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx });
  const cloud = useCopy({ role: 'cloud', api, redis: fx });
  // Each copy behind a tunnel that can fail, the edge in front of the tunnels.
  let hubTunnel: Tunnel;
  let cloudTunnel: Tunnel;
  let edge: NodeEdge;
  let edgeUrl: string;
  let clock = Date.now();
  const log = createMemoryLogger();

  beforeAll(async () => {
    hubTunnel = await startTunnel(hub.url);
    cloudTunnel = await startTunnel(cloud.url);
    edge = await startNodeEdge(hubTunnel.url, cloudTunnel.url);
    edgeUrl = edge.url;
  });
  afterAll(async () => {
    edge?.close();
    await hubTunnel?.close();
    await cloudTunnel?.close();
  });

  const checker = (holder: string) =>
    new LegChecker({
      edgeUrl,
      signingSecret: SECRET,
      everyMs: 1000,
      store: hub.store,
      holder,
      tell: (text, notice) => tellOwners(ownerLine(hub.client, [OWNER], log), text, { leg: notice.leg, kind: notice.kind }),
      log,
      // A second a check: the record's times are the checker's clock, not the wall's.
      now: () => clock,
    });
  const dms = () => api.calls.filter((c) => c.method === 'chat.postMessage' && c.params.channel === OWNER);
  const check = async (c: LegChecker) => {
    clock += 1000;
    const record = await c.check();
    if (!record) throw new Error('the check did not run');
    return record;
  };

  it('a probe pinned to the cloud leg reaches the cloud copy though the hub is up; a real mention carrying the header still goes to the hub', async () => {
    const probe = await signedSynthetic(SECRET, PROBE_EVENT_TYPE, 'legs-pin-1', Date.now());
    const pinned = await fetch(`${edgeUrl}/slack/events`, { method: 'POST', headers: { ...probe.headers, 'x-autohub-leg': 'cloud' }, body: probe.body });
    expect(pinned.status).toBe(200);
    expect([pinned.headers.get('x-autohub-route'), pinned.headers.get('x-autohub-role'), pinned.headers.get('x-autohub-claim')]).toEqual([
      'cloud',
      'cloud',
      'claimed',
    ]);
    const mention = await deliver(`${edgeUrl}/slack/events`, mentionEnvelope({ eventId: 'Ev-legs-pin', ts: '1700001000.000001' }), {
      signingSecret: SECRET,
      headers: { 'x-autohub-leg': 'cloud' },
    });
    expect(mention.headers.get('x-autohub-route')).toBe('hub');
  });

  it('records each leg proven, counts three failures of the cloud leg, tells the owner once, and once when it recovers; a second copy does not check meanwhile', async () => {
    const one = checker('copy-one');
    const other = checker('copy-two');
    const first = await check(one);
    expect(first.hub).toEqual({ provenAt: new Date(clock).toISOString(), failures: 0, alerted: false });
    expect(first.cloud.provenAt).toBe(new Date(clock).toISOString());
    const provenAt = first.cloud.provenAt;
    // The lock is held by the first copy: the second does not probe, write or tell.
    expect(await other.check()).toBeUndefined();

    cloudTunnel.fail500 = 1_000;
    expect((await check(one)).cloud.failures).toBe(1);
    expect((await check(one)).cloud.failures).toBe(2);
    expect(dms()).toHaveLength(0);
    const third = await check(one);
    expect(third.cloud).toMatchObject({ provenAt, failures: 3, alerted: true });
    expect(third.cloud.lastFailure).toMatch(/HTTP 503.*cloud leg: HTTP 500/);
    expect(third.hub.failures).toBe(0);
    expect(dms()).toHaveLength(1);
    expect(dms()[0]!.params.text).toMatch(/edge -> cloud leg failed 3 checks in a row/);
    expect((await check(one)).cloud.failures).toBe(4);
    expect(dms()).toHaveLength(1);

    const page = JSON.stringify(await statusPage(hub.store, { role: 'hub', instance: 'hub-test' }, true, clock));
    expect(page).toMatch(/Edge -> cloud\*: last proven 4s ago, :warning: 4 failed check\(s\) in a row/);
    expect(page).toMatch(/Edge -> hub\*: last proven 0s ago/);

    cloudTunnel.fail500 = 0;
    const recovered = await check(one);
    expect(recovered.cloud).toEqual({ provenAt: new Date(clock).toISOString(), failures: 0, alerted: false });
    expect(dms()).toHaveLength(2);
    expect(dms()[1]!.params.text).toMatch(/edge -> cloud leg answers again .* after 4 failed check/);
    await check(one);
    expect(dms()).toHaveLength(2);

    // Let go at shutdown: the other copy checks from then on.
    await one.stop();
    expect(await check(other)).toBeDefined();
    await other.stop();
  });

  it('a copy started with AUTOHUB_EDGE_URL and AUTOHUB_VERIFY_EVERY_MS checks on its own, and lets the lock go when it stops', async () => {
    const env = { AUTOHUB_INSTANCE: 'hub-legs', AUTOHUB_EDGE_URL: `${edgeUrl}/slack/events`, AUTOHUB_VERIFY_EVERY_MS: '1000', AUTOHUB_OWNER: OWNER };
    const copy = await startCopy({ role: 'hub', webApiUrl: api.url, upstash: { url: fx.bridge.url, token: fx.bridge.token }, env });
    try {
      expect(copy.legs).toBeDefined();
      await eventually(
        async () => JSON.parse((await hub.store.read(STATUS_KEYS.legs)) ?? '{}').by?.startsWith('hub-legs-') === true,
        'a check by the copy on its own timer',
      );
      const record = JSON.parse((await hub.store.read(STATUS_KEYS.legs))!) as { hub: { failures: number }; cloud: { failures: number } };
      expect([record.hub.failures, record.cloud.failures]).toEqual([0, 0]);
    } finally {
      await copy.stop();
    }
    expect(await hub.store.read(LEGS_LOCK_KEY)).toBeNull();
  });
});
