import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthReport } from '../../lib/receiver/index.js';
import { startFakeWebApi, type FakeWebApi } from '../../drill/sim/fake-web-api.js';
import { commandForm, deliver } from '../../drill/sim/slack-events.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, HEALTH_AUTH, SECRET, startCopy, type RunningCopy } from '../support/copies.js';

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
  let api: FakeWebApi;
  let hub: RunningCopy;

  beforeAll(async () => {
    api = await startFakeWebApi();
    hub = await startCopy({ role: 'hub', webApiUrl: api.url, upstash: { url: fx.bridge.url, token: fx.bridge.token } });
    // The start-up look is over (the next is two minutes away): from here on, only the tests talk to the store.
    await eventually(() => hub.reaper.looks >= 1 && Number.isFinite(hub.reaper.nextAt), 'the first look');
    hub.app.command('/slow', async ({ ack }) => {
      await new Promise((r) => setTimeout(r, 2500));
      await ack('too late');
    });
  });
  afterAll(async () => {
    fx.bridge.mode = 'normal';
    await hub?.stop();
    await api?.close();
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

  it('answers a command whose listener never acks in time with a deliberate 200 before 3 s', async () => {
    const started = performance.now();
    const response = await deliver(hub.eventsUrl, commandForm({ command: '/slow', triggerId: 'slow-1' }), { signingSecret: SECRET });
    const elapsed = performance.now() - started;
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autohub-ack')).toBe('deadline');
    expect(elapsed).toBeLessThan(3000);
    expect(hub.lines.some((l) => l.event === 'delivery.ack_deadline')).toBe(true);
  });
});
