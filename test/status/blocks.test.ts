import { describe, expect, it } from 'vitest';
import { statusBlocks, type StatusSnapshot } from '../../lib/status/index.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const iso = (msAgo: number) => new Date(NOW - msAgo).toISOString();
const text = (blocks: ReturnType<typeof statusBlocks>) => JSON.stringify(blocks);
/** A 429 refusal on record, `msAgo`, that named a window of `retryAfter` s and was waited `waited` s. */
const refusal = (method: string, retryAfter: string, waited: number, msAgo: number) => ({
  method,
  status: 429,
  body: { ok: false, error: 'ratelimited' },
  headers: { 'retry-after': retryAfter },
  waited,
  at: iso(msAgo),
  instance: 'hub-mac',
});

const base: StatusSnapshot = {
  answering: { role: 'hub', instance: 'hub-mac' },
  copies: [
    { at: iso(20_000), instance: 'hub-mac', role: 'hub', status: 'ok', storeOk: true },
    { at: iso(5 * 60_000), instance: 'cloud-railway', role: 'cloud', status: 'degraded', storeOk: false },
  ],
  storeKind: 'upstash',
  storeOk: true,
  turns: [
    {
      at: iso(30_000),
      role: 'cloud',
      instance: 'cloud-railway',
      outcome: 'answered',
      attempts: 1,
      stream: { how: 'completed', chunks: 4, ms: 2300 },
      takenOver: true,
    },
    { at: iso(2 * 3_600_000), role: 'hub', instance: 'hub-mac', outcome: 'dead', attempts: 4, reason: 'slack: not_in_channel' },
  ],
  failoverTimes: [iso(30_000), iso(3_600_000), iso(2 * 86_400_000)],
  refusals: [refusal('chat.postMessage', '3', 3, 60_000), refusal('chat.postMessage', '30', 1, 60_000), refusal('users.list', '3', 3, 3 * 86_400_000)],
  cloudLastServed: iso(30_000),
  dead: [{ key: 'k', eventId: 'Ev123', channel: 'C42', reason: 'slack: not_in_channel', attempts: 1, at: iso(2 * 3_600_000) }],
  lastFailover: { at: iso(30_000), reason: 'hub refusing (401)' },
  sweep: { at: iso(120_000), from: '2026-11-29T11:20:00.000Z', to: '2026-11-29T11:55:00.000Z', conversations: 4, found: 3, answered: 2 },
};

describe('statusBlocks', () => {
  it('says which copy answers and how each copy and the store were last seen', () => {
    const t = text(statusBlocks(base, NOW));
    expect(t).toContain('Answering now: *hub* `hub-mac`');
    expect(t).toContain('*Hub* `hub-mac`: ok (seen 20s ago)');
    expect(t).toContain('*Cloud copy* `cloud-railway`: degraded, store unreachable (seen 5m ago)');
    expect(t).toContain('*Claim store*: upstash, reachable');
  });

  it('lists the last turns, answered or dead-lettered, with which copy and how many runs', () => {
    const t = text(statusBlocks(base, NOW));
    expect(t).toContain('*Last 2 turn(s)*');
    expect(t).toContain('• 30s ago: answered by *cloud* `cloud-railway`, completed in 4 chunk(s) over 2.3 s, taken over');
    expect(t).toContain('• 2h ago: *dead letter* (slack: not_in_channel) by *hub* `hub-mac`, 4 runs');
  });

  it('lists dead letters with the id to replay, and the last failover with the edge reason', () => {
    const t = text(statusBlocks(base, NOW));
    expect(t).toContain('• `Ev123` in <#C42>: slack: not_in_channel, 1 run(s), 2h ago');
    expect(t).toContain('*Last failover*: 30s ago, hub refusing (401)');
    expect(text(statusBlocks({ ...base, dead: [] }, NOW))).toContain('*Dead letters*: none');
    expect(text(statusBlocks(base, NOW))).toContain('*Last catch-up sweep*: 2m ago, over 11:20-11:55 UTC in 4 conversation(s): 3 found, 2 answered late');
  });

  it('shows every replica under its own instance, and a silent one as silent', () => {
    const copies = [
      { at: iso(10_000), instance: 'cloud-a', role: 'cloud' as const, status: 'ok', storeOk: true },
      { at: iso(30 * 60_000), instance: 'cloud-b', role: 'cloud' as const, status: 'ok', storeOk: true },
    ];
    const t = text(statusBlocks({ ...base, copies }, NOW));
    expect(t).toContain('*Cloud copy* `cloud-a`: ok (seen 10s ago)');
    expect(t).toContain('*Cloud copy* `cloud-b`: :warning: silent since 11:30:00 UTC (30m ago); last said ok');
    expect(t).toContain('*Hub*: not seen yet');
  });

  describe('a copy is silent after about two of its heartbeat intervals, not 10 minutes', () => {
    // A hub that looks every 2 s (AUTOHUB_REAPER_MS=2000 would say 2,200 with its jitter): silent past 2 x 2,200 + 5,000 ms.
    const hub = (msAgo: number) => ({ at: iso(msAgo), instance: 'hub-mac', role: 'hub' as const, status: 'ok', storeOk: true, everyMs: 2_200 });
    const fromCloud = { ...base, answering: { role: 'cloud', instance: 'cloud-railway' } };

    it.each([
      [9_000, false],
      [9_500, true],
      [27_000, true],
    ])('a heartbeat %i ms old: silent %s', (msAgo, silent) => {
      const t = text(statusBlocks({ ...fromCloud, copies: [hub(msAgo)] }, NOW));
      if (silent) expect(t).toContain(`*Hub* \`hub-mac\`: :warning: silent since ${iso(msAgo).slice(11, 19)} UTC`);
      else expect(t).toContain('*Hub* `hub-mac`: ok (seen 9s ago)');
    });

    it('with the default 2-minute look, silent after about 4 minutes, not after 10', () => {
      const copy = { at: iso(5 * 60_000), instance: 'hub-mac', role: 'hub' as const, status: 'ok', storeOk: true, everyMs: 132_000 };
      expect(text(statusBlocks({ ...fromCloud, copies: [copy] }, NOW))).toContain(':warning: silent since 11:55:00 UTC (5m ago); last said ok');
    });

    it("the answering copy's peer watch calls the other copy silent at once, since its last heartbeat", () => {
      const downSince = NOW - 4_000;
      const t = text(statusBlocks({ ...fromCloud, copies: [hub(6_000)], peer: { role: 'hub', state: 'down', downSince } }, NOW));
      expect(t).toContain('*Hub* `hub-mac`: :warning: silent since 11:59:54 UTC (not answering its health route since 11:59:56 UTC); last said ok');
    });

    it('a peer watch that lost the role before this copy last spoke (a new replica) does not silence it', () => {
      const t = text(statusBlocks({ ...fromCloud, copies: [hub(2_000)], peer: { role: 'hub', state: 'down', downSince: NOW - 4_000 } }, NOW));
      expect(t).toContain('*Hub* `hub-mac`: ok (seen 2s ago)');
    });

    it('the copy answering is never silent: it is writing the page', () => {
      const self = { ...hub(60_000), instance: 'cloud-railway', role: 'cloud' as const };
      expect(text(statusBlocks({ ...fromCloud, copies: [self] }, NOW))).toContain('*Cloud copy* `cloud-railway`: ok (seen 1m ago)');
    });
  });

  it("counts the last 24 hours' failovers and refusals with the audit's verdicts", () => {
    const t = text(statusBlocks(base, NOW));
    expect(t).toContain('*Last 24 hours*: 2 turn(s) served by the cloud copy (failover)');
    expect(t).toContain('2 rate-limit refusal(s): 1 honoured, 1 retried-early');
  });

  it('warns when the cloud copy has been silent for days, and not before', () => {
    expect(text(statusBlocks(base, NOW))).not.toContain(':warning: The cloud copy');
    const silent = text(statusBlocks({ ...base, cloudLastServed: iso(6 * 86_400_000) }, NOW));
    expect(silent).toContain('*Cloud copy last served*: 6d ago');
    expect(silent).toContain(':warning: The cloud copy has served nothing for over 3 days');
    expect(text(statusBlocks({ ...base, cloudLastServed: null }, NOW))).toContain('last served*: never');
  });

  it("lists the last day's owner notices, newest first as read, and drops older ones", () => {
    const notices = [
      { cause: 'app_rate_limited' as const, at: iso(5 * 60_000), count: 3, detail: 'workspace T1, since 2026-11-29 11:50 UTC', instance: 'hub-mac' },
      { cause: 'claims_fail_open' as const, at: iso(25 * 3_600_000), count: 9, detail: 'deadline: no answer within 950 ms', instance: 'cloud-railway' },
    ];
    const t = text(statusBlocks({ ...base, notices }, NOW));
    expect(t).toContain('*Owner notices* (last 24 hours)');
    expect(t).toContain(
      '• :warning: 5m ago: *Slack is dropping events (app_rate_limited)*: workspace T1, since 2026-11-29 11:50 UTC (3 since the notice before), seen by `hub-mac`',
    );
    expect(t).not.toContain('Claims failing open');
    expect(text(statusBlocks({ ...base, notices: [] }, NOW))).toContain('*Owner notices* (last 24 hours): none');
  });

  it('reads sensibly with nothing recorded yet', () => {
    const t = text(statusBlocks({ ...base, copies: [], turns: [], failoverTimes: [], refusals: [], storeOk: null, dead: [], lastFailover: null }, NOW));
    expect(t).toContain('*Hub*: not seen yet');
    expect(t).toContain('_no turns recorded yet_');
    expect(t).toContain('0 rate-limit refusal(s)');
  });
});
