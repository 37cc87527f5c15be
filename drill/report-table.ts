/**
 * The drill's verdicts and its table: the report's columns (report-html.ts), and the terminal's narrower
 * table, a row a scenario within 100 columns, coloured on a TTY.
 */
import type { ScenarioResult } from './run-scenario.js';
import { clip, TERMINAL_WIDTH, wrap } from './wrap.js';

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
      'ok; ok with duplicates the scenario stated up front; not exercised (by this bot: it never does what the scenario tests), and what; or FAIL, and what failed',
    cell: (r) => verdictText(r),
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

/**
 * What went wrong in a scenario, most serious first, each in a few words (`2 lost`, `1 ack over 3 s`,
 * `fault not staged: hub frozen`): what its row says after FAIL, so a failing row is never only zeros.
 */
export function problems(result: ScenarioResult, options: { slowAcks?: boolean } = {}): string[] {
  const s = result.score;
  const count = (n: number | undefined, one: string, many = one) => ((n ?? 0) > 0 ? [`${n} ${n === 1 ? one : many}`] : []);
  return [
    ...count(s.lost, 'lost'),
    ...(result.duplicatesPossible ? [] : count(s.duplicateReplies, 'answered twice')),
    ...count(s.halfWritten, 'half-written'),
    ...count(s.answeredThenDead, 'answered and dead-lettered'),
    ...count(s.sideEffectsTwice, 'step run twice', 'steps run twice'),
    ...count(s.outOfOrder, 'follow-up out of order', 'follow-ups out of order'),
    ...count(s.spinningTasks, 'task left spinning', 'tasks left spinning'),
    ...(options.slowAcks === false ? [] : count(s.deadlineMisses, 'ack over 3 s', 'acks over 3 s')),
    ...result.faults.filter((f) => f.error !== undefined).map((f) => `fault not staged: ${f.label}`),
    ...(result.unmet ?? []),
  ];
}

/** The verdict as the terminal's row says it: the verdict, then what failed, what was not exercised, or the duplicates stated. */
export function verdictText(result: ScenarioResult): string {
  const v = verdict(result);
  if (v === 'FAIL') return `FAIL: ${problems(result).join(', ')}`;
  if (v === 'not exercised') return `not exercised: ${(result.notExercised ?? []).join('; ')}`;
  if (v === 'ok (dups stated)') return `ok: ${result.score.duplicateReplies} dup(s), stated up front`;
  if (v === 'ok (loss stated)') return `ok: lost ${lostByDesign(result)}, stated up front`;
  return v;
}

/** The report's column headed `header`. */
const column = (header: string): Column => COLUMNS.find((c) => c.header === header)!;

/**
 * The terminal's columns: the report's most telling ones, the same cells under shorter headers where need be,
 * so that with the scenario's name and its verdict a row fits 100 columns.
 */
export const TERMINAL_COLUMNS: readonly Column[] = [
  column('sent'),
  column('lost'),
  column('dup'),
  column('half'),
  column('>3s'),
  { ...column('hub'), means: 'share answered by the hub (the rest: the cloud copy)' },
  { ...column('max wait'), header: 'wait' },
];

/** Where each of the terminal table's cells sits: known before the first scenario ends, so each row prints as it ends. */
export interface TableLayout {
  name: number;
  widths: number[];
  /** What is left of the 100 columns for the verdict. */
  verdict: number;
}

const GAP = '  ';

/**
 * The table's layout for scenarios `names` of `events` mentions each: the name column as wide as the longest
 * name, a count as wide as twice the mentions (follow-ups and retries come on top), the verdict the rest.
 */
export function tableLayout(names: readonly string[], events: number): TableLayout {
  const name = Math.max('scenario'.length, ...names.map((n) => n.length));
  const digits = String(events * 2).length;
  // A share is at most `100%`; a wait at most `999.9 s`.
  const widths = TERMINAL_COLUMNS.map((c) => Math.max(c.header.length, c.header === 'hub' ? 4 : c.header === 'wait' ? 7 : digits));
  const used = name + widths.reduce((a, w) => a + GAP.length + w, 0) + GAP.length;
  return { name, widths, verdict: Math.max(8, TERMINAL_WIDTH - used) };
}

const cells = (layout: TableLayout, name: string, values: readonly string[], last: string) =>
  [name.padEnd(layout.name), ...values.map((v, i) => v.padStart(layout.widths[i]!)), clip(last, layout.verdict)].join(GAP);

/** The table's header. */
export function tableHeader(layout: TableLayout): string {
  return cells(
    layout,
    'scenario',
    TERMINAL_COLUMNS.map((c) => c.header),
    'verdict',
  );
}

/** One scenario's row, within 100 columns (the verdict clipped with `…`; the report has it whole); coloured on a terminal. */
export function tableRow(result: ScenarioResult, layout: TableLayout, colour = false): string {
  const text = cells(
    layout,
    result.name,
    TERMINAL_COLUMNS.map((c) => c.cell(result)),
    verdictText(result),
  );
  if (!colour) return text;
  const code = failed(result) ? 31 : result.score.duplicateReplies > 0 || lostByDesign(result) || verdict(result) === 'not exercised' ? 33 : 32;
  return `\x1b[${code}m${text}\x1b[0m`;
}

/** The whole table: header and a row a scenario. */
export function renderTable(results: readonly ScenarioResult[], colour: boolean, events = Math.max(1, ...results.map((r) => r.score.sent))): string {
  const layout = tableLayout(
    results.map((r) => r.name),
    events,
  );
  return [colour ? `\x1b[1m${tableHeader(layout)}\x1b[0m` : tableHeader(layout), ...results.map((r) => tableRow(r, layout, colour))].join('\n');
}

/** The legend under the terminal's table: what each column counts, within 100 columns. */
export function legend(): string[] {
  return wrap(`${TERMINAL_COLUMNS.map((c) => `${c.header}: ${c.means}`).join('; ')}.`, TERMINAL_WIDTH);
}

/**
 * The drill's last line: what the run proved, in one sentence, how long it took, and where its report and the
 * copies' log are (`22/22 scenarios ok in 4.8 min: 660 mentions, 0 lost, 0 answered twice, 0 half-written, no
 * ack over 3 s; report: drill.html`). One sentence; the terminal wraps it.
 */
export function summaryLine(results: readonly ScenarioResult[], report?: string, o: { tookMs?: number; log?: string } = {}): string {
  const sum = (f: (r: ScenarioResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const ok = results.filter((r) => !failed(r)).length;
  const late = sum((r) => r.score.deadlineMisses);
  const twice = sum((r) => r.score.duplicateReplies);
  const stated = results.filter((r) => r.duplicatesPossible && r.score.duplicateReplies > 0).length;
  const failing = results.filter((r) => failed(r)).map((r) => r.name);
  const idle = results.filter((r) => !failed(r) && (r.notExercised?.length ?? 0) > 0).map((r) => r.name);
  const took = o.tookMs === undefined ? '' : ` in ${o.tookMs < 60_000 ? `${(o.tookMs / 1000).toFixed(1)} s` : `${(o.tookMs / 60_000).toFixed(1)} min`}`;
  return (
    `${ok}/${results.length} scenarios ok${took}${failing.length ? ` (FAIL: ${failing.join(', ')})` : ''}${idle.length ? ` (not exercised by this bot: ${idle.join(', ')})` : ''}: ` +
    `${sum((r) => r.score.sent)} mentions, ${sum((r) => r.score.lost)} lost, ${twice} answered twice${stated ? ` (in ${stated} scenario(s) that said so up front)` : ''}, ` +
    `${sum((r) => r.score.halfWritten ?? 0)} half-written, ${late === 0 ? 'no ack over 3 s' : `${late} ack(s) over 3 s`}; ` +
    `report: ${report ?? '--report FILE.html'}${o.log ? `; copies' log: ${o.log}` : ''}`
  );
}
