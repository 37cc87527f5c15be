import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDrillArgs } from '../../drill/cli.js';
import { runDrill, type DrillResult } from '../../drill/drill.js';
import { renderHtml } from '../../drill/report-html.js';
import { failed, renderTable, tableLayout, tableRow } from '../../drill/report-table.js';
import type { ScenarioResult } from '../../drill/run-scenario.js';
import { inShare, SCENARIOS } from '../../drill/scenarios.js';
import { dumpDom } from '../support/chromium.js';
import { scenarioResult } from '../support/drill-result.js';

describe('parseDrillArgs', () => {
  it('runs every scenario by default, 30 mentions each, time factor 120', () => {
    expect(parseDrillArgs([])).toMatchObject({ events: 30, factor: 120, json: false });
    expect(parseDrillArgs([]).scenarios).toHaveLength(SCENARIOS.length);
  });
  it.each([
    [['--scenario', 'nope'], /unknown scenario "nope"; one of steady, /],
    [['--events', '0'], /--events takes a whole number from 1/],
    [['--events'], /--events needs a value/],
    [['--bogus'], /unknown argument "--bogus"/],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseDrillArgs(argv)).toThrow(message);
  });
});

// An ack's 3 s is a wall-clock bound a busy CI machine can miss for reasons of its own: counted and shown, not judged here.
const ACKS_REPORTED = { slowAcks: false } as const;

describe("the drill's verdict", () => {
  it('an ack later than 3 s fails the verdict npm run drill prints (Slack would retry it), unless only reported', () => {
    const onTime = scenarioResult('on-time', { deadlineMisses: 0 });
    const late = scenarioResult('late', { deadlineMisses: 1 });
    expect(failed(onTime)).toBe(false);
    expect(failed(late)).toBe(true);
    expect(failed(late, ACKS_REPORTED)).toBe(false);
  });
});

/** The drill's row a scenario as it ends, kept for a test and shown live in the log (CI saw 70 s of silence). */
function showLive(into: string[], events: number) {
  const layout = tableLayout(
    SCENARIOS.map((s) => s.name),
    events,
  );
  return (result: ScenarioResult) => {
    const row = tableRow(result, layout);
    into.push(row);
    process.stderr.write(`drill: ${row}\n`);
  };
}

describe('the failover drill, every scenario end to end (fewer mentions than `npm run drill`)', () => {
  let drill: DrillResult;
  const result = (name: string) => {
    const found = drill.results.find((r) => r.name === name);
    if (!found) throw new Error(`scenario ${name} did not run`);
    return found;
  };
  const exact = SCENARIOS.filter((s) => !s.duplicatesPossible).map((s) => s.name);
  const stated = SCENARIOS.filter((s) => s.duplicatesPossible).map((s) => s.name);
  const lines: string[] = [];
  /** The drill's own lines beside a scenario's row, as they went into the copies' log. */
  const notes: string[] = [];

  beforeAll(async () => {
    drill = await runDrill({
      scenarios: SCENARIOS,
      events: 12,
      factor: 120,
      onResult: showLive(lines, 12),
      onLog: (scenario, instance, line) => {
        if (instance === 'drill') notes.push(`${scenario}: ${line}`);
      },
    });
    // both-down-long alone holds its copies down for 60 s (two hours of Slack's time at factor 120), then restarts
    // them; inbox-commands 20 s, both-down-edge-key 5 s; ask and schedule restart their copies three times each. The bound is the
    // setup's, not a figure: a run on CI's two cores took about 5 minutes for 32 scenarios; 36 now, and a loaded machine takes longer.
  }, 900_000);

  it('says a row as each scenario ends, in order, with its verdict, within 100 columns (the drill was silent for 70 s in CI)', () => {
    expect(lines).toHaveLength(SCENARIOS.length);
    SCENARIOS.forEach((s, i) => {
      expect(lines[i]).toMatch(new RegExp(`^${s.name} +\\d+ +\\d+ +\\d+ .*  (ok|not exercised|FAIL)`));
      expect(lines[i]!.length).toBeLessThanOrEqual(100);
    });
  });

  it("keeps the copies' log lines out of the terminal and counts them by scenario", () => {
    expect(Object.keys(drill.logs)).toEqual(SCENARIOS.map((s) => s.name));
    // store-spent's store refuses every request: the copies log it at error, as they did on the drill's terminal before.
    expect(drill.logs['store-spent']!.events).toContainEqual(expect.objectContaining({ event: 'store.unreachable', level: 'error' }));
    // assistant's figures for its clicks were a line of their own in the terminal: now in its log, as the drill's note.
    expect(notes.filter((n) => n.startsWith('assistant: '))).toEqual([expect.stringMatching(/^assistant: assistant: \d+ clicks, \d+ deliveries: acks p50 /)]);
    expect(drill.logs.assistant!.lines).toBeGreaterThan(0);
  });

  it('runs all scenarios against real copies, a real Redis and the edge', () => {
    expect(drill.store).toBe('redis-server');
    expect(drill.results.map((r) => r.name)).toEqual(SCENARIOS.map((s) => s.name));
  });

  /** Mentions a scenario sends at 12 a scenario: its own, and the follow-ups its people write in their threads. */
  const sentBy = (name: string): number => {
    const s = SCENARIOS.find((x) => x.name === name);
    const events = s?.events ?? 12;
    const follow = s?.followUps;
    return events + (follow ? Array.from({ length: events }, (_, i) => i).filter((i) => inShare(i, follow.share, 3)).length : 0);
  };

  it.each(exact)('%s: no mention lost, none answered twice', (name) => {
    const r = result(name);
    // A scenario stopped before its end sends nothing: why it stopped is in its unmet (CI said only "expected 0 to be 12").
    expect(r.score.sent, (r.unmet ?? []).join('; ')).toBe(sentBy(name));
    expect(r.score.lostMentions).toEqual([]);
    expect(r.score.doubledMentions).toEqual([]);
    expect(failed(r, ACKS_REPORTED)).toBe(false);
  });

  it.each(stated)('%s: no mention lost; its duplicates are stated up front and counted', (name) => {
    const r = result(name);
    expect(r.score.sent, (r.unmet ?? []).join('; ')).toBe(sentBy(name));
    expect(r.score.lostMentions).toEqual([]);
    expect(r.duplicatesPossible).toMatch(/\w/);
    expect(r.score.duplicateReplies).toBeGreaterThanOrEqual(r.score.doubledMentions.length);
    expect(failed(r, ACKS_REPORTED)).toBe(false);
  });

  it("frozen-step: the frozen hub's thinking turns were taken over, each turn's ticket filed, none twice", () => {
    const r = result('frozen-step');
    expect(r.score.takenOver).toBeGreaterThan(0);
    expect(r.score.sideEffects).toBeGreaterThanOrEqual(r.score.answered);
    expect(r.score.sideEffectsTwice).toBe(0);
  });

  it('routes as each fault demands', () => {
    expect(result('steady').score.servedByHub).toBe(12);
    expect(result('hub-offline').score.servedByCloud).toBe(12);
    expect(result('hub-flapping').score.servedByCloud).toBeGreaterThan(0);
    expect(result('hub-flapping').score.servedByHub).toBeGreaterThan(0);
    // Seed 000's hole: the first cloud forward failed, so Slack had to retry, and the retry still landed.
    expect(result('cloud-500-once').score.retries).toBeGreaterThanOrEqual(1);
  });

  it('hub-slow: the edge stops waiting for the slow hub and the cloud copy acks instead, while the hub, which took the turns, answers them all', () => {
    // Not an ack's wall-clock time (see ACKS_REPORTED): which copy acked and which answered.
    const r = result('hub-slow');
    expect(r.attempts.filter((a) => a.route === 'cloud' && a.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(r.score.servedByHub).toBe(12);
    expect(r.score.servedByCloud).toBe(0);
  });

  it('hub-misconfigured: a hub refusing every delivery (stale secret) costs nothing: the cloud answers all', () => {
    expect(result('hub-misconfigured').score.servedByCloud).toBe(12);
  });

  it('store-blip-mid-turn: a failed renewal does not cost the owner its turn: nothing taken over, all answered by the hub', () => {
    expect(result('store-blip-mid-turn').score.takenOver).toBe(0);
    expect(result('store-blip-mid-turn').score.servedByHub).toBe(12);
  });

  it('web-api-outage: every post that failed was retried and answered once, none dead-lettered', () => {
    expect(result('web-api-outage').score.answered).toBe(12);
    expect(result('web-api-outage').score.deadLetters).toBe(0);
  });

  it('hub-dies-mid-stream: the cloud copy completes the streams the hub left open; none is half-written', () => {
    expect(result('hub-dies-mid-stream').score.halfWritten).toBe(0);
    expect(result('hub-dies-mid-stream').score.lost).toBe(0);
    expect(result('hub-dies-mid-stream').score.duplicateReplies).toBe(0);
  });

  it('both-down: the mentions Slack gave up on are read back from its history and answered, late', () => {
    expect(result('both-down').score.caughtUp).toBeGreaterThanOrEqual(1);
    expect(result('both-down').score.lost).toBe(0);
  });

  it("both-down-long: the edge keeps every delivery (Slack's events never turned off), each command answered once, each click heard once", () => {
    const s = result('both-down-long').score;
    expect(s.keptByEdge).toBeGreaterThan(0);
    expect(s.eventsDisabled).toBe(false);
    expect(s.commands).toBeGreaterThan(0);
    expect([s.commandsAnswered, s.commandsTwice]).toEqual([s.commands, 0]);
    expect(s.commandsByDm).toBeGreaterThan(0);
    expect([s.clicksHeard, s.clicksTwice]).toEqual([s.clicks, 0]);
    expect(result('both-down-long').unmet).toBeUndefined();
  });

  it('both-down-edge-key: the edge seals with a key the copies lack; each kept delivery counted once as not opened, the owner told once with the way to check, verify flags both copies, the sweep answers the mentions, and only the kept commands and clicks are lost, as stated', () => {
    const r = result('both-down-edge-key');
    // Its own checks (drill/edge-key.ts): told once, as many as were kept, never "answered"; the health bodies' key ids apart; verify's FAIL lines.
    expect(r.unmet).toBeUndefined();
    expect(r.score.keptByEdge).toBeGreaterThan(0);
    expect([r.score.lost, r.score.duplicateReplies]).toEqual([0, 0]);
    expect(r.score.caughtUp).toBeGreaterThan(0);
    expect([r.score.commandsTwice, r.score.clicksTwice]).toEqual([0, 0]);
    expect(r.lostByDesign).toMatch(/store key the copies do not hold/);
    expect(failed(r, ACKS_REPORTED)).toBe(false);
  });

  it('ask: every turn asked and was resumed once, by its person or its timeout, the hub SIGKILLed and both copies down meanwhile; each ticket filed once', () => {
    const s = result('ask').score;
    expect(s.asked).toBe(12);
    expect((s.askChosen ?? 0) + (s.askTimedOut ?? 0)).toBe(12);
    expect(s.askTimedOut).toBeGreaterThan(0);
    expect([s.sideEffects, s.sideEffectsTwice]).toEqual([12, 0]);
    expect(result('ask').unmet).toBeUndefined();
  });

  it('schedule: each slot once, none lost while a copy was up (the cloud copy fires while the hub is dark); each ticket filed once', () => {
    const s = result('schedule').score;
    expect(s.slots).toBeGreaterThan(4);
    expect([s.slotsTwice, s.slotsLost, s.sideEffectsTwice]).toEqual([0, 0, 0]);
    expect(result('schedule').unmet).toBeUndefined();
  });

  it('both-down-edge-store: the store out of the edge reach, the edge answers 503 and the sweep answers the mentions, late', () => {
    const r = result('both-down-edge-store');
    expect(r.attempts.some((a) => a.status === 503)).toBe(true);
    expect(r.score.keptByEdge).toBe(0);
    expect(r.score.caughtUp).toBeGreaterThanOrEqual(1);
    expect(r.score.lost).toBe(0);
  });

  it('hub-dies-mid-turn: the hub is killed with a post in flight, and the cloud copy takes that turn over', () => {
    expect(result('hub-dies-mid-turn').score.takenOver).toBeGreaterThanOrEqual(1);
  });

  it('writes a report whose timelines render in headless Chromium', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autohub-drill-'));
    const path = join(dir, 'report.html');
    writeFileSync(path, renderHtml(drill.results, { factor: 120, store: drill.store, generatedAt: 'test' }));
    const dom = dumpDom(path);
    for (const r of drill.results) {
      const svg = dom.match(new RegExp(`<svg class="timeline" data-scenario="${r.name}"[\\s\\S]*?</svg>`))?.[0];
      expect(svg, `timeline of ${r.name}`).toBeDefined();
      expect(svg!.match(/<circle class="attempt/g)).toHaveLength(r.attempts.length);
    }
    expect(dom).toContain('<td><a href="#scenario-hub-offline">hub-offline</a></td>');
    expect(renderTable(drill.results, false)).toMatch(/^scenario +sent +lost +dup +half +>3s +hub +wait +verdict\n/);
  });
});

describe('the drill without a redis-server', () => {
  it('runs both copies in this process on a shared in-process store, and says so', async () => {
    const names = ['steady', 'hub-offline', 'redis-hang', 'slack-duplicate-message'];
    const drill = await runDrill({
      scenarios: SCENARIOS.filter((s) => names.includes(s.name)),
      events: 8,
      factor: 120,
      inProcess: true,
      onResult: showLive([], 8),
    });
    expect(drill.store).toBe('in-process');
    for (const r of drill.results) {
      expect(r.score.lostMentions, r.name).toEqual([]);
      expect(failed(r, ACKS_REPORTED), r.name).toBe(false);
    }
    expect(drill.results.find((r) => r.name === 'hub-offline')!.score.servedByCloud).toBe(8);
  }, 120_000);
});
