import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthReport } from '../../lib/liveness/index.js';
import { commandForm, deliver } from '../../drill/sim/slack-events.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, HEALTH_AUTH, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

describe('healthReport', () => {
  const base = {
    role: 'hub' as const,
    instance: 'h',
    version: '1',
    startedAt: 0,
    now: 61_500,
    turns: { running: 0, waiting: 0, leases: 0 },
    loop: { p99Ms: 0, maxMs: 0 },
  };
  it.each([
    ['starting', { kind: 'upstash' as const, ok: null, checked_at: null }, 503, 'starting'],
    ['serving', { kind: 'upstash' as const, ok: true, checked_at: 'x' }, 200, 'ok'],
    ['serving', { kind: 'upstash' as const, ok: false, checked_at: 'x' }, 200, 'degraded'],
    ['draining', { kind: 'memory' as const, ok: true, checked_at: 'x' }, 503, 'draining'],
  ] as const)('%s with store ok=%j answers %i %s', (lifecycle, store, status, text) => {
    const report = healthReport({ ...base, lifecycle, store });
    expect(report.status).toBe(status);
    expect(report.body.status).toBe(text);
    expect(report.body.uptime_s).toBe(61);
  });
});

describe('a copy whose store hangs', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({ role: 'hub', api, redis: fx });
  /** Lets the /slow command's listener finish: it waits for this, so it acks only after the test has its answer. */
  let releaseSlow: () => void = () => {};

  beforeAll(async () => {
    // The start-up look is over (the next is two minutes away): from here on, only the tests talk to the store.
    await eventually(() => hub.reaper.looks >= 1 && Number.isFinite(hub.reaper.nextAt), 'the first look');
    // The start-up drain of the edge's inbox (and the first look's hourly check of it) is over too: joined, not run again.
    await hub.inbox?.drain('the test waits for the start-up drain');
    hub.app.command('/slow', async ({ ack }) => {
      await new Promise<void>((r) => {
        releaseSlow = r;
      });
      await ack('too late');
    });
  });
  afterAll(() => {
    fx.bridge.mode = 'normal';
    releaseSlow();
  });

  it('answers health fast and says degraded, with 200, once the probe has failed', async () => {
    fx.bridge.mode = 'hang';
    try {
      // Health answers from what the copy knows: no store request, so a hung store cannot slow it.
      const before = fx.bridge.requests;
      for (let i = 0; i < 3; i++) {
        const response = await fetch(hub.healthUrl);
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      expect(fx.bridge.requests).toBe(before);
      await hub.health.refresh();
      const body = await (await fetch(hub.healthUrl, { headers: HEALTH_AUTH })).json();
      expect(body).toMatchObject({ status: 'degraded', store: { kind: 'upstash', ok: false } });
      expect(JSON.stringify(body)).not.toContain(fx.bridge.token);
    } finally {
      fx.bridge.mode = 'normal';
    }
  });

  it("answers a command whose listener has not acked by the deadline itself, with a 200 inside Slack's 3 s (before: Slack timed out and retried)", async () => {
    // The listener acks only once this test has its answer: the 200 can only be the receiver's own.
    const response = await deliver(hub.eventsUrl, commandForm({ command: '/slow', triggerId: 'slow-1' }), { signingSecret: SECRET });
    releaseSlow();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-ack')).toBe('deadline');
    const line = hub.lines.find((l) => l.event === 'delivery.ack_deadline');
    expect(line?.ackDeadlineMs).toBeLessThan(3000);
  });
});
