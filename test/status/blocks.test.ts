import { describe, expect, it } from 'vitest';
import { statusBlocks, type StatusSnapshot } from '../../lib/status/index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const iso = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const text = (blocks: ReturnType<typeof statusBlocks>) => JSON.stringify(blocks);

const base: StatusSnapshot = {
  answering: { role: 'hub', instance: 'hub-mac' },
  hub: { at: iso(20_000), instance: 'hub-mac', status: 'ok', storeOk: true },
  cloud: { at: iso(5 * 60_000), instance: 'cloud-railway', status: 'degraded', storeOk: false },
  storeKind: 'upstash',
  storeOk: true,
  turns: [
    { at: iso(30_000), role: 'cloud', instance: 'cloud-railway', ackMs: 41.2, claim: 'claimed' },
    { at: iso(2 * 3_600_000), role: 'hub', instance: 'hub-mac', ackMs: 12, claim: 'fail-open' },
  ],
  failoverTimes: [iso(30_000), iso(3_600_000), iso(2 * 86_400_000)],
  refusals: [
    { method: 'chat.postMessage', status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '3' }, waited: 3, at: iso(60_000), instance: 'hub-mac' },
    { method: 'chat.postMessage', status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '30' }, waited: 1, at: iso(60_000), instance: 'hub-mac' },
    { method: 'users.list', status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '3' }, waited: 3, at: iso(3 * 86_400_000), instance: 'hub-mac' },
  ],
  cloudLastServed: iso(30_000),
};

describe('statusBlocks', () => {
  it('says which copy answers and how each copy and the store were last seen', () => {
    const t = text(statusBlocks(base, NOW));
    expect(t).toContain('Answering now: *hub* `hub-mac`');
    expect(t).toContain('*Hub* `hub-mac`: ok (seen 20s ago)');
    expect(t).toContain('*Cloud copy* `cloud-railway`: degraded, store unreachable (seen 5m ago)');
    expect(t).toContain('*Claim store*: upstash, reachable');
  });

  it('lists the last turns with when, which copy, ack latency and claim outcome', () => {
    const t = text(statusBlocks(base, NOW));
    expect(t).toContain('*Last 2 turn(s)*');
    expect(t).toContain('• 30s ago: *cloud* `cloud-railway`, ack 41 ms, claim claimed');
    expect(t).toContain('• 2h ago: *hub* `hub-mac`, ack 12 ms, claim fail-open');
  });

  it("counts the last 24 hours' failovers and refusals with the audit's verdicts", () => {
    const t = text(statusBlocks(base, NOW));
    expect(t).toContain('*Last 24 hours*: 2 turn(s) served by the cloud copy (failover)');
    expect(t).toContain('2 rate-limit refusal(s): 1 honoured, 1 retried-early');
  });

  it('warns when the cloud copy has been silent for days, and not before', () => {
    expect(text(statusBlocks(base, NOW))).not.toContain(':warning:');
    const silent = text(statusBlocks({ ...base, cloudLastServed: iso(6 * 86_400_000) }, NOW));
    expect(silent).toContain('*Cloud copy last served*: 6d ago');
    expect(silent).toContain(':warning: The cloud copy has served nothing for over 3 days');
    expect(text(statusBlocks({ ...base, cloudLastServed: null }, NOW))).toContain('last served*: never');
  });

  it('reads sensibly with nothing recorded yet', () => {
    const t = text(statusBlocks({ ...base, hub: null, cloud: null, turns: [], failoverTimes: [], refusals: [], storeOk: null }, NOW));
    expect(t).toContain('*Hub*: not seen yet');
    expect(t).toContain('_no turns recorded yet_');
    expect(t).toContain('0 rate-limit refusal(s)');
  });
});
