/**
 * OpenTelemetry, with the standard OTEL_* variables, against an OTLP/HTTP
 * receiver on loopback: a delivery's claim, run, Web API writes and end are
 * exported as one trace whose id is derived from the event, a retry joins
 * that trace, and no message text leaves in a span.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventKey } from '../../lib/store/index.js';
import { traceIdOf } from '../../lib/telemetry/index.js';
import { eventually, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

const TEAM = 'T0AUTOHUB';

describe('traces, with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(() => otlp.close());
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({
    role: 'hub',
    api,
    redis: fx,
    env: {
      AUTOHUB_TURN_RETRY_DELAY_MS: '100',
      AUTOHUB_REAPER_MS: '60000',
      OTEL_SERVICE_NAME: 'autohub-test',
      OTEL_BSP_SCHEDULE_DELAY: '20',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=sekrit-collector-key',
      // Read when the copy starts, after the receiver has its port.
      get OTEL_EXPORTER_OTLP_ENDPOINT() {
        return otlp.url;
      },
    },
  });
  let n = 0;
  const mention = async (eventId: string, text: string) => {
    const ts = `1700002000.${String(++n).padStart(6, '0')}`;
    const ack = await deliver(hub.eventsUrl, mentionEnvelope({ eventId, ts, text: `<@UAUTOHUB> ${text}` }), { signingSecret: SECRET });
    expect(ack.status).toBe(200);
  };
  const traceOf = (eventId: string) => otlp.spans().filter((s) => s.traceId === traceIdOf(eventKey(TEAM, eventId)));

  it('one trace per delivery: the claim, the run, each Web API write under the run, and the end; attributes name the event, the copy, the route and the outcome', async () => {
    await mention('Ev-traced', 'the secret plan is tangerine');
    await eventually(
      () => ['autohub.end', 'slack chat.stopStream'].every((name) => traceOf('Ev-traced').some((s) => s.name === name)),
      'the end and the last write',
      10_000,
    );
    const spans = traceOf('Ev-traced');
    const claim = spans.find((s) => s.name === 'autohub.claim')!;
    const run = spans.find((s) => s.name === 'autohub.run')!;
    const end = spans.find((s) => s.name === 'autohub.end')!;
    expect(claim.attributes).toMatchObject({
      'slack.event_id': 'Ev-traced',
      'autohub.outcome': 'claimed',
      'autohub.instance': 'hub-test',
      'autohub.role': 'hub',
    });
    expect(claim.parentSpanId).toBe('');
    expect(run.attributes).toMatchObject({ 'slack.event_id': 'Ev-traced', 'autohub.route': 'live', 'autohub.kind': 'event', 'autohub.outcome': 'ran' });
    expect(end.parentSpanId).toBe(run.spanId);
    expect(end.attributes['autohub.outcome']).toBe('ran');
    const writes = spans.filter((s) => s.name.startsWith('slack '));
    expect(writes.map((s) => s.attributes['slack.method'])).toEqual(expect.arrayContaining(['chat.startStream', 'chat.stopStream']));
    expect(writes.every((s) => s.parentSpanId === run.spanId)).toBe(true);
    expect(run.resource).toMatchObject({ 'service.name': 'autohub-test', 'service.instance.id': 'hub-test', 'autohub.role': 'hub' });
    // What the person wrote and what the bot answered stay out of every span.
    const exported = otlp.bodies.join('\n');
    expect(exported).not.toContain('tangerine');
    const answered = api.calls.filter((c) => c.method.startsWith('chat.') && typeof c.params.markdown_text === 'string').map((c) => c.params.markdown_text!);
    expect(answered.length).toBeGreaterThan(0);
    for (const text of answered) if (text.length > 8) expect(exported).not.toContain(text);
    expect(otlp.headers.every((h) => h['x-collector-key'] === 'sekrit-collector-key')).toBe(true);
  });

  it('a retry joins the trace of the run it retries: two runs, one trace id, the first ended `retry`', async () => {
    api.script('chat.startStream', { status: 500, body: { ok: false, error: 'internal' } });
    await mention('Ev-traced-retry', 'again please');
    await eventually(() => traceOf('Ev-traced-retry').filter((s) => s.name === 'autohub.end').length === 2, 'both runs to end', 10_000);
    const runs = traceOf('Ev-traced-retry').filter((s) => s.name === 'autohub.run');
    expect(runs.map((r) => [r.attributes['autohub.route'], r.attributes['autohub.outcome']])).toEqual([
      ['live', 'retry'],
      ['retry', 'ran'],
    ]);
    const failed = traceOf('Ev-traced-retry').find((s) => s.name === 'slack chat.startStream' && s.attributes['http.response.status_code'] === 500);
    expect(failed?.parentSpanId).toBe(runs[0]!.spanId);
  });

  it("the collector key is masked in the copy's logs", () => {
    expect(JSON.stringify(hub.lines)).not.toContain('sekrit-collector-key');
    expect(hub.lines.some((l) => l.event === 'telemetry.started')).toBe(true);
  });
});
