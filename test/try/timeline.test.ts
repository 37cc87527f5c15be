/** The playground's timeline: a copy's log line as a few words a person reads, the rest left out. */
import { describe, expect, it } from 'vitest';
import { timelineEntry } from '../../try/timeline.js';

const line = (fields: Record<string, unknown>) => JSON.stringify({ level: 'info', at: '2026-12-01T21:00:00.000Z', instance: 'drill-cloud', ...fields });

describe('timelineEntry', () => {
  it.each([
    [{ event: 'lease.takeover' }, "took over a turn whose owner's lease lapsed"],
    [{ event: 'claim.confirmed' }, 'claimed the turn'],
    [{ event: 'turn.replied', stream: 'updated', parts: 1, ms: 2300 }, 'completed the message begun before (1 message(s), 2300 ms)'],
    [{ event: 'turn.failed', failure: 'ratelimited', retryInMs: 1000 }, 'the turn failed (ratelimited): retry in 1000 ms'],
  ])('%j reads "%s"', (fields, what) => {
    expect(timelineEntry('drill-cloud', line(fields))).toEqual({ at: Date.parse('2026-12-01T21:00:00.000Z'), who: 'drill-cloud', what });
  });
  it('leaves out what a person need not see, and lines that are not JSON', () => {
    expect(timelineEntry('drill-hub', line({ event: 'peer.state' }))).toBeUndefined();
    expect(timelineEntry('drill-hub', 'node: warning')).toBeUndefined();
  });
});
