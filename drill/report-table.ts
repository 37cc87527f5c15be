/** The drill's table for a terminal: colour on a TTY, plain otherwise. */
import type { ScenarioResult } from './run-scenario.js';

/**
 * A scenario fails on a fault it could not stage, a mention lost, answered and dead-lettered too, or left
 * half-written, a step's side effect run twice for one mention, a follow-up answered out of order, a task left spinning, an expectation of its own unmet (`unmet`), a duplicate it did not state up front, or (unless
 * `slowAcks: false`) an ack later than Slack's 3 s: Slack would retry it.
 */
export function failed(result: ScenarioResult, options: { slowAcks?: boolean } = {}): boolean {
  const s = result.score;
  return (
    result.faults.some((f) => f.error !== undefined) ||
    (result.unmet?.length ?? 0) > 0 ||
    s.lost > 0 ||
    (s.answeredThenDead ?? 0) > 0 ||
    (s.halfWritten ?? 0) > 0 ||
    (s.outOfOrder ?? 0) > 0 ||
    (s.spinningTasks ?? 0) > 0 ||
    (s.sideEffectsTwice ?? 0) > 0 ||
    (s.duplicateReplies > 0 && !result.duplicatesPossible) ||
    (options.slowAcks !== false && s.deadlineMisses > 0)
  );
}

/**
 * What a scenario lost that it said up front it would (Scenario.lostByDesign; its forms score excused them): the
 * slash commands never answered and clicks never heard, beside its lost mentions (which fail it all the same).
 */
export function lostByDesign(result: ScenarioResult): string | undefined {
  const s = result.score;
  if (!result.lostByDesign) return undefined;
  const lost: Array<[number, number, string]> = [
    [s.lost, s.sent, 'mentions'],
    [(s.commands ?? 0) - (s.commandsAnswered ?? 0), s.commands ?? 0, 'slash commands'],
    [(s.clicks ?? 0) - (s.clicksHeard ?? 0), s.clicks ?? 0, 'clicks'],
  ];
  const said = lost.filter(([n]) => n > 0).map(([n, of, what]) => `${n} of ${of} ${what}`);
  return said.length ? said.join(', ') : undefined;
}

/** What a scenario's verdict says: a FAIL, what this bot never does (not a failure), a pass with duplicates or losses it stated up front, or a plain pass. */
export function verdict(result: ScenarioResult): 'FAIL' | 'not exercised' | 'ok (dups stated)' | 'ok (loss stated)' | 'ok' {
  if (failed(result)) return 'FAIL';
  if ((result.notExercised?.length ?? 0) > 0) return 'not exercised';
  if (result.score.duplicateReplies > 0) return 'ok (dups stated)';
  return lostByDesign(result) ? 'ok (loss stated)' : 'ok';
}

export interface Column {
  header: string;
  /** What it counts, for the legend under the terminal's table. */
  means: string;
  /** What the column says of one scenario, as both the terminal table and the HTML report show it. */
  cell(result: ScenarioResult): string;
}

const pct = (n: number, of: number) => (of === 0 ? '-' : `${Math.round((n / of) * 100)}%`);
const served = (r: ScenarioResult) => r.score.servedByHub + r.score.servedByCloud;

/** The drill's columns: one list, so the table and the HTML report cannot drift apart. */
export const COLUMNS: readonly Column[] = [
  { header: 'scenario', means: 'its name (--help lists them)', cell: (r) => r.name },
  { header: 'sent', means: 'mentions sent', cell: (r) => String(r.score.sent) },
  { header: 'answered', means: 'mentions with a reply', cell: (r) => String(r.score.answered) },
  { header: 'lost', means: 'mentions never answered', cell: (r) => String(r.score.lost) },
  { header: 'dup', means: 'mentions answered twice', cell: (r) => String(r.score.duplicateReplies) },
  { header: 'retries', means: "Slack's redeliveries", cell: (r) => String(r.score.retries) },
  { header: 'hub', means: 'share answered by the hub', cell: (r) => pct(r.score.servedByHub, served(r)) },
  { header: 'cloud', means: 'share answered by the cloud copy', cell: (r) => pct(r.score.servedByCloud, served(r)) },
  { header: 'taken over', means: 'turns the hub acked and the cloud copy finished (their owner died)', cell: (r) => String(r.score.takenOver) },
  { header: 'dead', means: 'dead letters (turns given up, kept for npm run deadletter)', cell: (r) => String(r.score.deadLetters ?? 0) },
  { header: 'ans+dead', means: 'mentions answered and then dead-lettered as well', cell: (r) => String(r.score.answeredThenDead ?? 0) },
  { header: 'half', means: 'replies left half-written (a stream never closed, an answer cut)', cell: (r) => String(r.score.halfWritten ?? 0) },
  // A step's side effect run twice for one mention (scenarios whose turns file tickets; '-' elsewhere).
  {
    header: 'step x2',
    means: "a step's side effect run twice for one mention ('-': the scenario's turns have none)",
    cell: (r) => (r.score.sideEffects === undefined ? '-' : String(r.score.sideEffectsTwice ?? 0)),
  },
  { header: 'caught up', means: 'answered by the catch-up sweep after Slack gave up on them', cell: (r) => String(r.score.caughtUp) },
  { header: 'late', means: 'answered over 10 s after they were sent', cell: (r) => String(r.score.late) },
  { header: 'max wait', means: 'the longest wait for a first reply', cell: (r) => `${(r.score.maxWaitMs / 1000).toFixed(1)} s` },
  { header: 'ack p50', means: 'median time to answer Slack', cell: (r) => `${Math.round(r.score.ackP50Ms)} ms` },
  { header: 'ack p99', means: '99th percentile of it', cell: (r) => `${Math.round(r.score.ackP99Ms)} ms` },
  { header: '>3s', means: "acks later than Slack's 3 s (Slack would retry)", cell: (r) => String(r.score.deadlineMisses) },
  {
    header: 'verdict',
    means:
      'ok, ok (dups stated: the scenario said up front it may answer twice), ok (loss stated: it said up front what it loses), not exercised (by this bot: it never does what the scenario tests), or FAIL',
    cell: verdict,
  },
];

/** The lines under the table: each stated duplicate, each fault not staged, each expectation unmet. */
export function notes(results: readonly ScenarioResult[]): string[] {
  return [
    ...results.filter((r) => r.duplicatesPossible).map((r) => `note: ${r.name}: ${r.duplicatesPossible}`),
    ...results.filter((r) => r.lostByDesign).map((r) => `note: ${r.name}: lost by design (${lostByDesign(r) ?? 'none'}): ${r.lostByDesign}`),
    ...results.flatMap((r) => r.faults.filter((f) => f.error).map((f) => `fault not staged: ${r.name}: ${f.label}: ${f.error}`)),
    ...results.flatMap((r) => (r.unmet ?? []).map((u) => `unmet: ${r.name}: ${u}`)),
    ...results.flatMap((r) => (r.notExercised ?? []).map((u) => `not exercised by this bot: ${r.name}: ${u}`)),
    ...results
      .filter((r) => (r.score.outOfOrder ?? 0) > 0)
      .map((r) => `out of order: ${r.name}: ${r.score.outOfOrder} follow-ups answered before the answer before them was whole`),
    ...results
      .filter((r) => (r.score.stepRepeats ?? 0) > 0)
      .map(
        (r) =>
          `step repeats: ${r.name}: ${r.score.stepRepeats} step requests sent again under their idempotency key (a copy frozen between the step's check and its request), each a no-op at the desk`,
      ),
    ...results.filter((r) => (r.score.spinningTasks ?? 0) > 0).map((r) => `spinning: ${r.name}: ${r.score.spinningTasks} tasks left pending or in progress`),
  ];
}

export function renderTable(results: readonly ScenarioResult[], colour: boolean): string {
  const paint = (code: number, text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const header = COLUMNS.map((c) => c.header);
  const rows = results.map((r) => COLUMNS.map((c) => c.cell(r)));
  const widths = header.map((_, i) => Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const out = [paint(1, line(header)), widths.map((w) => '-'.repeat(w)).join('  ')];
  rows.forEach((cells, i) => {
    const r = results[i]!;
    const text = line(cells);
    out.push(failed(r) ? paint(31, text) : r.score.duplicateReplies > 0 || lostByDesign(r) ? paint(33, text) : paint(32, text));
  });
  out.push(...notes(results));
  return out.join('\n');
}

/** The legend under the terminal's table: what each column counts. */
export function legend(): string {
  return `legend: ${COLUMNS.filter((c) => c.header !== 'scenario')
    .map((c) => `${c.header}: ${c.means}`)
    .join('; ')}`;
}

/**
 * The drill's last line: what the run proved, in one sentence, and where its report is
 * (`22/22 scenarios ok: 660 mentions, 0 lost, 0 answered twice, 0 half-written, no ack over 3 s; report: drill.html`).
 */
export function summaryLine(results: readonly ScenarioResult[], report?: string): string {
  const sum = (f: (r: ScenarioResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const ok = results.filter((r) => !failed(r)).length;
  const late = sum((r) => r.score.deadlineMisses);
  const twice = sum((r) => r.score.duplicateReplies);
  const stated = results.filter((r) => r.duplicatesPossible && r.score.duplicateReplies > 0).length;
  const failing = results.filter((r) => failed(r)).map((r) => r.name);
  const idle = results.filter((r) => !failed(r) && (r.notExercised?.length ?? 0) > 0).map((r) => r.name);
  return (
    `${ok}/${results.length} scenarios ok${failing.length ? ` (FAIL: ${failing.join(', ')})` : ''}${idle.length ? ` (not exercised by this bot: ${idle.join(', ')})` : ''}: ` +
    `${sum((r) => r.score.sent)} mentions, ${sum((r) => r.score.lost)} lost, ${twice} answered twice${stated ? ` (in ${stated} scenario(s) that said so up front)` : ''}, ` +
    `${sum((r) => r.score.halfWritten ?? 0)} half-written, ${late === 0 ? 'no ack over 3 s' : `${late} ack(s) over 3 s`}; ` +
    `report: ${report ?? '--report FILE.html'}`
  );
}
