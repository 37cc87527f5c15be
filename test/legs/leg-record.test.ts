import { describe, expect, it } from 'vitest';
import { ALERT_AFTER, judgeLeg, nextLeg, nextLegs, noticeText, parseLegsRecord, type LegState } from '../../lib/legs/index.js';
import { parseAppConfig } from '../../lib/config/index.js';
import { pinnedLeg, PROBE_EVENT_TYPE, syntheticBody } from '../../lib/synthetic/index.js';

const fresh: LegState = { provenAt: null, failures: 0, alerted: false };
const fail = { ok: false as const, reason: 'HTTP 503' };

describe('one leg, one check', () => {
  it('the owner is told once, at the third failure in a row, and once when the leg recovers (not for a leg that never failed)', () => {
    let state = fresh;
    const told: string[] = [];
    for (const [i, check] of [fail, fail, fail, fail, { ok: true as const }, { ok: true as const }].entries()) {
      const next = nextLeg(state, check, `t${i}`);
      if (next.notice) told.push(`${i}:${next.notice}`);
      state = next.state;
    }
    expect(ALERT_AFTER).toBe(3);
    expect(told).toEqual(['2:failing', '4:recovered']);
    expect(state).toEqual({ provenAt: 't5', failures: 0, alerted: false });
  });

  it('a failure keeps when the leg was last proven', () => {
    const { state } = nextLeg({ provenAt: 'then', failures: 1, alerted: false }, fail, 'now');
    expect(state).toEqual({ provenAt: 'then', failures: 2, alerted: false, lastFailure: 'HTTP 503' });
  });

  it('both legs are counted apart, and a stored record reads back as written; garbage reads as none', () => {
    const { record, notices } = nextLegs(
      { at: 'a', by: 'x', hub: fresh, cloud: { provenAt: 'p', failures: 2, alerted: false } },
      { hub: { ok: true }, cloud: fail },
      'b',
      'copy',
    );
    expect(record.hub.failures).toBe(0);
    expect(notices.map((n) => [n.leg, n.kind])).toEqual([['cloud', 'failing']]);
    expect(noticeText(notices[0]!)).toMatch(/edge -> cloud leg failed 3 checks in a row \(HTTP 503\); last proven p/);
    expect(parseLegsRecord(JSON.stringify(record))).toEqual(record);
    expect(parseLegsRecord('{"hub":1}')).toBeUndefined();
    expect(parseLegsRecord('not json')).toBeUndefined();
  });
});

describe("the edge's answer to a pinned probe", () => {
  const answered = (status: number, route: string, role: string | null, claim: string | null, body = '') => ({
    kind: 'answered' as const,
    status,
    route,
    role,
    claim,
    body,
  });
  it.each([
    ['proven', answered(200, 'cloud', 'cloud', 'claimed'), true],
    ['the leg failed at the edge', answered(503, 'none', null, null, 'cloud leg: HTTP 500'), false],
    ['an edge that ignores the pin (older deploy): served by the hub', answered(200, 'hub', 'hub', 'claimed'), false],
    ['the copy cannot reach the store', answered(200, 'cloud', 'cloud', 'fail-open'), false],
  ])('%s', (_what, answer, ok) => {
    expect(judgeLeg('cloud', answer).ok).toBe(ok);
  });
  it('a timeout or no connection fails the leg', () => {
    expect(judgeLeg('hub', { kind: 'timeout' })).toEqual({ ok: false, reason: 'the edge: timeout' });
  });
});

describe('which requests the edge pins to one leg', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  it('only a probe, only hub or cloud: a real event, a form or a bad value is routed as usual', () => {
    expect(pinnedLeg('cloud', bytes(syntheticBody(PROBE_EVENT_TYPE, 'e', 0)))).toBe('cloud');
    expect(pinnedLeg('hub', bytes(syntheticBody(PROBE_EVENT_TYPE, 'e', 0)))).toBe('hub');
    expect(pinnedLeg('cloud', bytes(syntheticBody('app_mention', 'e', 0)))).toBeUndefined();
    expect(pinnedLeg('cloud', bytes('command=%2Fautohub'))).toBeUndefined();
    expect(pinnedLeg('edge', bytes(syntheticBody(PROBE_EVENT_TYPE, 'e', 0)))).toBeUndefined();
    expect(pinnedLeg(null, bytes(syntheticBody(PROBE_EVENT_TYPE, 'e', 0)))).toBeUndefined();
  });
});

describe('AUTOHUB_EDGE_URL and AUTOHUB_VERIFY_EVERY_MS', () => {
  const base = { AUTOHUB_ROLE: 'hub', SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'xoxb-1' };
  it('on every 30 minutes with an edge URL (a pasted /slack/events dropped); off without one or with 0', () => {
    expect(parseAppConfig({ ...base, AUTOHUB_EDGE_URL: 'https://edge.example.com/slack/events' }).legs).toEqual({
      edgeUrl: 'https://edge.example.com',
      everyMs: 1_800_000,
    });
    expect(parseAppConfig({ ...base, AUTOHUB_EDGE_URL: 'https://edge.example.com', AUTOHUB_VERIFY_EVERY_MS: '1000' }).legs?.everyMs).toBe(1000);
    expect(parseAppConfig({ ...base, AUTOHUB_EDGE_URL: 'https://edge.example.com', AUTOHUB_VERIFY_EVERY_MS: '0' }).legs).toBeNull();
    expect(parseAppConfig(base).legs).toBeNull();
  });
  it.each(['999', '-1', '1.5', 'soon', '86400001'])('refuses AUTOHUB_VERIFY_EVERY_MS=%s with a line naming it', (value) => {
    expect(() => parseAppConfig({ ...base, AUTOHUB_VERIFY_EVERY_MS: value })).toThrow(
      /AUTOHUB_VERIFY_EVERY_MS is invalid: expected 0 \(off\) or a whole number of milliseconds from 1000 to 86400000/,
    );
  });
  it('refuses an edge URL that is not http(s)', () => {
    expect(() => parseAppConfig({ ...base, AUTOHUB_EDGE_URL: 'edge.example.com' })).toThrow(/AUTOHUB_EDGE_URL/);
  });
});
