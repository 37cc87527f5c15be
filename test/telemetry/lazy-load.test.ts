/**
 * A copy without OTEL_* loads no OpenTelemetry module (lib/telemetry loads
 * them by dynamic import, only when configured): each package is wrapped so
 * that importing it is recorded. The copy with OTEL_* set is the control:
 * the same record sees it load them.
 */
import { describe, expect, it, vi } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

const { loaded, recorded } = vi.hoisted(() => {
  const loaded = new Set<string>();
  /** A mock factory that records the import, then gives the real module. */
  const recorded = (name: string) => async (original: () => Promise<unknown>) => {
    loaded.add(name);
    return original();
  };
  return { loaded, recorded };
});
vi.mock('@opentelemetry/api', recorded('@opentelemetry/api'));
vi.mock('@opentelemetry/sdk-trace', recorded('@opentelemetry/sdk-trace'));
vi.mock('@opentelemetry/exporter-trace-otlp-http', recorded('@opentelemetry/exporter-trace-otlp-http'));
vi.mock('@opentelemetry/resources', recorded('@opentelemetry/resources'));
vi.mock('@opentelemetry/semantic-conventions', recorded('@opentelemetry/semantic-conventions'));

describe('OpenTelemetry is loaded only when configured', () => {
  const api = useFakeWebApi();
  const plain = useCopy({ role: 'hub', api });

  it('a copy without OTEL_* answers a mention and loads no @opentelemetry module', async () => {
    const ack = await deliver(plain.eventsUrl, mentionEnvelope({ eventId: 'Ev-no-otel', ts: '1700003000.000100' }), { signingSecret: SECRET });
    expect(ack.status).toBe(200);
    await eventually(() => api.calls.some((c) => c.params.thread_ts === '1700003000.000100' && c.method === 'chat.startStream'), 'the answer');
    expect(plain.telemetry.enabled).toBe(false);
    expect([...loaded]).toEqual([]);
  });

  describe('the control', () => {
    // Nothing listens there: spans are lost, the copy is not.
    const traced = useCopy({ role: 'cloud', api, env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_BSP_SCHEDULE_DELAY: '20' } });
    it('a copy with OTEL_EXPORTER_OTLP_ENDPOINT loads them when it starts; a collector that is not there costs spans, not answers', async () => {
      expect(traced.telemetry.enabled).toBe(true);
      expect([...loaded].sort()).toEqual([
        '@opentelemetry/api',
        '@opentelemetry/exporter-trace-otlp-http',
        '@opentelemetry/resources',
        '@opentelemetry/sdk-trace',
        '@opentelemetry/semantic-conventions',
      ]);
      await deliver(traced.eventsUrl, mentionEnvelope({ eventId: 'Ev-otel-down', ts: '1700003000.000200' }), { signingSecret: SECRET });
      await eventually(() => api.calls.some((c) => c.params.thread_ts === '1700003000.000200' && c.method === 'chat.startStream'), 'the answer');
      await eventually(() => traced.lines.some((l) => l.event === 'telemetry.export_failed'), 'the failed export to be logged', 15_000);
    });
  });
});
