/**
 * A copy's logs, at debug level, through a mention, a failing
 * post, a dead letter, a takeover and a command, carry neither the message
 * text nor the bot token nor the signing secret.
 */
import { describe, expect, it } from 'vitest';
import { commandForm, deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventKey } from '../../lib/store/index.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { eventually, repliesTo, SECRET } from '../support/copies.js';
import { useCopy, useFakeWebApi } from '../support/fixtures.js';

const MARKER = 'LOGMARKER-91c2';

describe('what a copy logs', () => {
  const fx = useRedisBridge();
  const api = useFakeWebApi();
  const hub = useCopy({
    role: 'hub',
    api,
    redis: fx,
    env: {
      AUTOHUB_LOG_LEVEL: 'debug',
      AUTOHUB_TURN_RETRY_DELAY_MS: '50',
      AUTOHUB_TURN_ATTEMPTS: '2',
      AUTOHUB_LEASE_MS: '1000',
      AUTOHUB_LEASE_RENEW_MS: '300',
      AUTOHUB_REAPER_MS: '200',
    },
  });

  it('never carries the message, the bot token or the signing secret, whatever happens to the turn', async () => {
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-log-1', ts: '1700005000.000001', text: MARKER }), { signingSecret: SECRET });
    await eventually(() => repliesTo(api, 'Ev-log-1').length === 1, 'the reply');
    api.fail('chat.startStream', { status: 500, body: { ok: false, error: `internal ${MARKER}` } });
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-log-2', ts: '1700005000.000002', text: MARKER }), { signingSecret: SECRET });
    await eventually(async () => ((await hub.store.listDead(10)) ?? []).some((d) => d.eventId === 'Ev-log-2'), 'the dead letter', 10_000);
    api.fail('chat.startStream', null);
    // A takeover of a dead owner's turn.
    const key = eventKey('T0AUTOHUB', 'Ev-log-3');
    const { token: _t, ...body } = mentionEnvelope({ eventId: 'Ev-log-3', ts: '1700005000.000003', text: MARKER });
    await hub.store.claim([key], { instance: 'gone', role: 'cloud' }, { leaseMs: 10, body: JSON.stringify(body) });
    await eventually(() => repliesTo(api, 'Ev-log-3').length === 1, 'the takeover reply', 10_000);
    await deliver(hub.eventsUrl, commandForm({ triggerId: 'trig-log', text: MARKER }), { signingSecret: SECRET });
    await deliver(hub.eventsUrl, mentionEnvelope({ eventId: 'Ev-forged', ts: '1', text: MARKER }), { signingSecret: 'wrong-secret' });

    const all = JSON.stringify(hub.lines);
    expect(hub.lines.length).toBeGreaterThan(10);
    expect(hub.lines.some((l) => l.event === 'lease.takeover')).toBe(true);
    expect(hub.lines.some((l) => l.event === 'turn.failed')).toBe(true);
    expect(all).not.toContain(MARKER);
    expect(all).not.toContain('xoxb-test-token');
    expect(all).not.toContain(SECRET);
  });
});
