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

/** What a scenario's verdict says: a FAIL, a pass with duplicates it stated up front, or a plain pass. */
export function verdict(result: ScenarioResult): 'FAIL' | 'ok (dups stated)' | 'ok' {
  return failed(result) ? 'FAIL' : result.score.duplicateReplies > 0 ? 'ok (dups stated)' : 'ok';
}

export interface Column {
  header: string;
  /** What the column says of one scenario, as both the terminal table and the HTML report show it. */
  cell(result: ScenarioResult): string;
}

const pct = (n: number, of: number) => (of === 0 ? '-' : `${Math.round((n / of) * 100)}%`);
const served = (r: ScenarioResult) => r.score.servedByHub + r.score.servedByCloud;

/** The drill's columns: one list, so the table and the HTML report cannot drift apart. */
export const COLUMNS: readonly Column[] = [
  { header: 'scenario', cell: (r) => r.name },
  { header: 'sent', cell: (r) => String(r.score.sent) },
  { header: 'answered', cell: (r) => String(r.score.answered) },
  { header: 'lost', cell: (r) => String(r.score.lost) },
  { header: 'dup', cell: (r) => String(r.score.duplicateReplies) },
  { header: 'retries', cell: (r) => String(r.score.retries) },
  { header: 'hub', cell: (r) => pct(r.score.servedByHub, served(r)) },
  { header: 'cloud', cell: (r) => pct(r.score.servedByCloud, served(r)) },
  { header: 'taken over', cell: (r) => String(r.score.takenOver) },
  { header: 'dead', cell: (r) => String(r.score.deadLetters ?? 0) },
  { header: 'ans+dead', cell: (r) => String(r.score.answeredThenDead ?? 0) },
  { header: 'half', cell: (r) => String(r.score.halfWritten ?? 0) },
  // A step's side effect run twice for one mention (scenarios whose turns file tickets; '-' elsewhere).
  { header: 'step x2', cell: (r) => (r.score.sideEffects === undefined ? '-' : String(r.score.sideEffectsTwice ?? 0)) },
  { header: 'caught up', cell: (r) => String(r.score.caughtUp) },
  { header: 'late', cell: (r) => String(r.score.late) },
  { header: 'max wait', cell: (r) => `${(r.score.maxWaitMs / 1000).toFixed(1)} s` },
  { header: 'ack p50', cell: (r) => `${Math.round(r.score.ackP50Ms)} ms` },
  { header: 'ack p99', cell: (r) => `${Math.round(r.score.ackP99Ms)} ms` },
  { header: '>3s', cell: (r) => String(r.score.deadlineMisses) },
  { header: 'verdict', cell: verdict },
];

/** The lines under the table: each stated duplicate, each fault not staged, each expectation unmet. */
export function notes(results: readonly ScenarioResult[]): string[] {
  return [
    ...results.filter((r) => r.duplicatesPossible).map((r) => `note: ${r.name}: ${r.duplicatesPossible}`),
    ...results.flatMap((r) => r.faults.filter((f) => f.error).map((f) => `fault not staged: ${r.name}: ${f.label}: ${f.error}`)),
    ...results.flatMap((r) => (r.unmet ?? []).map((u) => `unmet: ${r.name}: ${u}`)),
    ...results
      .filter((r) => (r.score.outOfOrder ?? 0) > 0)
      .map((r) => `out of order: ${r.name}: ${r.score.outOfOrder} follow-ups answered before the answer before them was whole`),
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
    out.push(failed(r) ? paint(31, text) : r.score.duplicateReplies > 0 ? paint(33, text) : paint(32, text));
  });
  out.push(...notes(results));
  return out.join('\n');
}
