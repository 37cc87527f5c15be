/**
 * A takeover joins the trace of the delivery it takes over: the hub (a child
 * process) claims a mention and is SIGKILLed mid-turn; its claim span had
 * already reached the collector (spans leave within OTEL_BSP_SCHEDULE_DELAY
 * of their end), and the cloud copy's run of the takeover lands in the same
 * trace, though neither copy told the other anything.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventKey } from '../../lib/store/index.js';
import { traceIdOf } from '../../lib/telemetry/index.js';
import { SHORT_LEASE, spawnHub, type ChildApp } from '../support/child-app.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { slowAuth } from '../support/takeover-rig.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

describe('a takeover, traced', () => {
  let otlp: OtlpReceiver;
  let hub: ChildApp | undefined;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(() => otlp.close());
  afterEach(() => hub?.child.kill('SIGKILL'));
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const otel = () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
  const cloud = useCopy({
    role: 'cloud',
    api,
    redis: fx,
    env: {
      ...SHORT_LEASE,
      get OTEL_EXPORTER_OTLP_ENDPOINT() {
        return otlp.url;
      },
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
  });

  it("the hub dies mid-turn after its claim span left; the cloud's takeover run joins the same trace", async () => {
    hub = await spawnHub({ webApiUrl: api.url, upstash: fx.bridge, secret: SECRET }, otel());
    api.script('auth.test', slowAuth(60_000));
    const ack = await deliver(`${hub.url}/slack/events`, mentionEnvelope({ eventId: 'Ev-traced-takeover', ts: '1700004000.000100' }), {
      signingSecret: SECRET,
    });
    expect(ack.headers.get('x-autohub-claim')).toBe('claimed');
    const trace = () => otlp.spans().filter((s) => s.traceId === traceIdOf(eventKey('T0AUTOHUB', 'Ev-traced-takeover')));
    await eventually(() => trace().some((s) => s.name === 'autohub.claim'), "the hub's claim span at the collector, the hub still mid-turn");
    hub.child.kill('SIGKILL');
    await eventually(
      () => trace().some((s) => s.name === 'autohub.end' && s.attributes['autohub.instance'] === 'cloud-test'),
      "the cloud's takeover to end",
      15_000,
    );
    expect(repliesTo(api, 'Ev-traced-takeover')).toHaveLength(1);
    const claim = trace().find((s) => s.name === 'autohub.claim')!;
    expect(claim.attributes).toMatchObject({ 'autohub.instance': 'hub-child', 'autohub.outcome': 'claimed', 'slack.event_id': 'Ev-traced-takeover' });
    const runs = trace().filter((s) => s.name === 'autohub.run');
    // The hub's own run never ended (it was killed inside it): only the takeover's run is there.
    expect(runs.map((r) => [r.attributes['autohub.instance'], r.attributes['autohub.route'], r.attributes['autohub.outcome']])).toEqual([
      ['cloud-test', 'claimed', 'ran'],
    ]);
    expect(cloud.lines.some((l) => l.event === 'lease.takeover')).toBe(true);
  });
});
