/** The assistant drill's line about its clicks (drill/assistant-traffic.ts): ack times as Slack saw them, and the claims' answers. */
import { describe, expect, it } from 'vitest';
import { clickFigures } from '../../drill/assistant-traffic.js';
import type { Attempt } from '../../drill/slack-sim.js';

const attempt = (ms: number | undefined, claim: string | null, status: Attempt['status'] = 200): Attempt => ({
  mention: 'click:1700000000.000001',
  eventId: 'click-1',
  retryNum: 0,
  sentAt: 1000,
  answeredAt: ms === undefined ? undefined : 1000 + ms,
  status,
  route: null,
  claim,
  role: null,
  noRetry: false,
});

describe("the assistant drill's click line", () => {
  it('counts an ack over 3 s and a timeout as late, and names each claim answer, a fail-open one included', () => {
    const line = clickFigures([attempt(20, 'claimed'), attempt(40, 'duplicate'), attempt(3200, 'fail-open'), attempt(undefined, null, 'timeout')], 2);
    expect(line).toBe('2 clicks, 4 deliveries: acks p50 40 ms, p99 3200 ms, 2 over 3 s; claims 1 claimed, 1 duplicate, 1 fail-open, 1 timeout');
  });

  it('says none when no click was sent', () => {
    expect(clickFigures([], 0)).toBe('0 clicks, 0 deliveries: acks p50 0 ms, p99 0 ms, 0 over 3 s; claims none');
  });
});
