/**
 * A hub SIGKILLed mid-turn with no traffic after it and no AUTOHUB_PEER_URL,
 * the edge (Node, real sockets) in front: the edge's signed hint wakes the
 * cloud copy's reaper a lease after the ack, so the turn is taken over then.
 * The reaper's idle period is an hour here, so only the hint can explain a
 * takeover.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lapsedIn } from '../../app/wiring.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { HINT_EVENT_TYPE, signedSynthetic } from '../../lib/synthetic/index.js';
import { spawnHub, type ChildApp } from '../support/child-app.js';
import { eventually, repliesTo, SECRET, turnOver } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { startNodeEdge, type NodeEdge } from './node-edge.js';

const LEASE = { AUTOHUB_LEASE_MS: '1500', AUTOHUB_LEASE_RENEW_MS: '400' };
/** An hour: the idle look never comes within a test. */
const QUIET_REAPER = { AUTOHUB_REAPER_MS: '3600000' };

describe('a quiet hub that dies mid-turn, no peer URL, the edge in front', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const cloud = useCopy({ role: 'cloud', api, redis: fx, env: { ...LEASE, ...QUIET_REAPER } });
  // The hub as a child process the test can kill, the edge in front of both.
  let hub: ChildApp;
  let edge: NodeEdge;
  let edgeUrl: string;

  beforeAll(async () => {
    hub = await spawnHub({ webApiUrl: api.url, upstash: fx.bridge, secret: SECRET }, { ...LEASE, ...QUIET_REAPER });
    edge = await startNodeEdge(hub.url, cloud.url);
    edgeUrl = edge.url;
  });
  afterAll(() => {
    hub?.child.kill('SIGKILL');
    edge?.close();
  });

  /** The cloud's reaper has nothing planned before its idle hour. */
  const reaperIdle = () => eventually(() => cloud.reaper.nextAt > Date.now() + 60_000, "the cloud's reaper to be idle");

  it('a signed hint wakes the reaper one lease later (a second one within the lease changes nothing); an unsigned or forged hint is refused and wakes nothing', async () => {
    await reaperIdle();
    const idleAt = cloud.reaper.nextAt;
    // What the copy asked of its reaper: the lease's lapse, read as a value (not against the wall clock).
    const asked = vi.spyOn(cloud.reaper, 'lookIn');
    const hint = await signedSynthetic(SECRET, HINT_EVENT_TYPE, 'hint-test-1', Date.now());

    const unsigned = await fetch(cloud.eventsUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: hint.body });
    expect(unsigned.status).toBe(401);
    const forged = await signedSynthetic('not-the-signing-secret', HINT_EVENT_TYPE, 'hint-test-2', Date.now());
    expect((await fetch(cloud.eventsUrl, { method: 'POST', headers: forged.headers, body: forged.body })).status).toBe(401);
    expect(cloud.reaper.nextAt).toBe(idleAt);
    expect(asked).not.toHaveBeenCalled();

    const signed = await fetch(cloud.eventsUrl, { method: 'POST', headers: hint.headers, body: hint.body });
    expect(signed.status).toBe(200);
    // Not claimed: a hint costs no store command of its own.
    expect(signed.headers.get('x-autohub-claim')).toBe('none');
    // One look asked for when the hub's lease (1,500 ms) has lapsed, and planned ahead of the idle hour.
    expect(asked.mock.calls).toEqual([[lapsedIn(1500)]]);
    expect(lapsedIn(1500)).toBeGreaterThanOrEqual(1500);
    const woken = cloud.reaper.nextAt;
    expect(woken).toBeLessThan(idleAt);

    const again = await signedSynthetic(SECRET, HINT_EVENT_TYPE, 'hint-test-3', Date.now());
    expect((await fetch(cloud.eventsUrl, { method: 'POST', headers: again.headers, body: again.body })).status).toBe(200);
    // Asked again, and the look already planned stands: many hints, one look.
    expect(asked).toHaveBeenCalledTimes(2);
    expect(cloud.reaper.nextAt).toBe(woken);
    asked.mockRestore();
  });

  it('the hub is SIGKILLed right after acking through the edge: the cloud copy, woken by the hint, takes the turn over and answers once', async () => {
    // Let the first test's hinted look pass, so the reaper is idle for its hour again.
    await reaperIdle();
    const looksBefore = cloud.reaper.looks;
    // The hub claims and acks, then sits in its turn (a slow auth.test) before it can reply.
    api.script('auth.test', { status: 200, delayMs: 60_000, body: { ok: true, user_id: 'UAUTOHUB', bot_id: 'BAUTOHUB' } });
    const before = api.calls.filter((c) => c.method === 'auth.test').length;
    const ack = await deliver(`${edgeUrl}/slack/events`, mentionEnvelope({ eventId: 'Ev-quiet', ts: '1700000900.000001' }), { signingSecret: SECRET });
    expect(ack.status).toBe(200);
    expect(ack.headers.get('x-autohub-route')).toBe('hub');
    expect(ack.headers.get('x-autohub-claim')).toBe('claimed');
    await eventually(() => api.calls.filter((c) => c.method === 'auth.test').length > before, 'the hub to be mid-turn');
    hub.child.kill('SIGKILL');
    await hub.exited;

    await eventually(() => repliesTo(api, 'Ev-quiet').length > 0, 'the cloud copy to take the turn over', 12_000);
    await turnOver(cloud.store, 'Ev-quiet');
    expect(repliesTo(api, 'Ev-quiet')).toHaveLength(1);
    expect(repliesTo(api, 'Ev-quiet')[0]!.params.text).toMatch(/the cloud copy/);
    expect(cloud.lines.some((l) => l.event === 'delivery.hint')).toBe(true);
    expect(cloud.lines.some((l) => l.event === 'lease.takeover')).toBe(true);
    // No traffic reached the cloud but the hint: its reaper looked because of it, not on its idle hour.
    expect(cloud.lines.some((l) => l.event === 'delivery.acked' || l.event === 'delivery.duplicate')).toBe(false);
    expect(cloud.reaper.looks).toBeGreaterThan(looksBefore);
  });
});
