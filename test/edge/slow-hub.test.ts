import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, quiescent, repliesTo, SECRET } from '../support/copies.js';
import { useRedisBridge } from '../support/redis-fixture.js';
import { startSystem, type System } from '../support/system.js';

describe('the edge in front of two real copies sharing one Redis', () => {
  const fx = useRedisBridge();
  let sys: System;
  let edgeUrl: string;

  beforeAll(async () => {
    sys = await startSystem(fx);
    edgeUrl = `${sys.edgeUrl}/slack/events`;
  });
  afterAll(async () => {
    await sys?.close();
  });

  it("a hub alive but slower than the edge's timeout gives one reply, not two", async () => {
    sys.tunnel.mode = 'slow';
    sys.tunnel.slowMs = 2000;
    try {
      const response = await deliver(edgeUrl, mentionEnvelope({ eventId: 'Ev-slow-hub', ts: '1700000001.000100' }), { signingSecret: SECRET });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(response.headers.get('x-autohub-claim')).toBe('duplicate');
      await eventually(() => repliesTo(sys.api, 'Ev-slow-hub').length > 0, "the hub's reply");
      await quiescent([sys.hub, sys.cloud]);
      expect(repliesTo(sys.api, 'Ev-slow-hub')).toHaveLength(1);
      expect(repliesTo(sys.api, 'Ev-slow-hub')[0]!.params.text).toMatch(/the hub/);
    } finally {
      sys.tunnel.mode = 'pass';
    }
  });

  it('a cut tunnel (530) sends the turn to the cloud copy, which answers once', async () => {
    sys.tunnel.mode = 'cut';
    try {
      const response = await deliver(edgeUrl, mentionEnvelope({ eventId: 'Ev-cut', ts: '1700000001.000200' }), { signingSecret: SECRET });
      expect(response.headers.get('x-autohub-route')).toBe('cloud');
      expect(response.headers.get('x-autohub-claim')).toBe('claimed');
      await eventually(() => repliesTo(sys.api, 'Ev-cut').length > 0, 'the cloud reply');
      await quiescent([sys.hub, sys.cloud]);
      expect(repliesTo(sys.api, 'Ev-cut')).toHaveLength(1);
      expect(repliesTo(sys.api, 'Ev-cut')[0]!.params.text).toMatch(/the cloud copy/);
    } finally {
      sys.tunnel.mode = 'pass';
    }
  });
});
