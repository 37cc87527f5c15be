/**
 * The drill's report as one self-contained HTML page (no network needed): the
 * table first (the same columns as the terminal's, each scenario a link to its
 * timeline), then a compact timeline per scenario with every delivery attempt
 * on a time axis, coloured by the copy that answered it, the fault windows
 * shaded and labelled (labels stacked in rows, never over each other), Slack's
 * retries ringed, lost and doubled turns marked.
 */
import type { ScenarioResult } from './run-scenario.js';
import type { CopyLog } from './copy-log.js';
import { COLUMNS, failed, lostByDesign, notes, verdict } from './report-table.js';

const COLOURS = { hub: '#2f6fdf', cloud: '#e8871e', none: '#d2283c', reply: '#4a4a4a' } as const;
const LANES = ['attempts answered by the hub', 'attempts answered by the cloud copy', 'attempts no copy accepted', 'replies posted', 'lost / doubled'] as const;
const W = 960;
const RIGHT = W - 16;
const LANE_H = 20;
const LEFT = 236;
/** A fault label's row: 11 px text. */
const LABEL_ROW_H = 14;
/** A generous width of one character of an 11 px label, so an estimate never comes out short of the text. */
const LABEL_CHAR_W = 7;

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The anchor of a scenario's section. */
export function sectionId(name: string): string {
  return `scenario-${name.replace(/[^\w-]/g, '_')}`;
}

export interface PlacedLabel {
  /** Where the label's text starts, px. */
  x: number;
  width: number;
  row: number;
}

/**
 * Fault labels laid out in rows above the lanes: each label starts at its
 * window's start (or is moved left to fit before the right edge) and takes the
 * first row where it clears every label already there. Pure.
 */
export function placeLabels(labels: readonly { x: number; text: string }[], left = LEFT, right = RIGHT): PlacedLabel[] {
  const rowEnds: number[] = [];
  const order = labels.map((l, i) => ({ ...l, i })).sort((a, b) => a.x - b.x || a.i - b.i);
  const placed: PlacedLabel[] = new Array(labels.length);
  for (const l of order) {
    const width = l.text.length * LABEL_CHAR_W + 4;
    const x = Math.max(left, Math.min(l.x + 3, right - width));
    let row = rowEnds.findIndex((end) => end + 8 <= x);
    if (row === -1) row = rowEnds.push(0) - 1;
    rowEnds[row] = x + width;
    placed[l.i] = { x, width, row };
  }
  return placed;
}

/** A step for the time axis's ticks: at most about ten over the span. */
function tickStep(spanMs: number): number {
  return [250, 500, 1000, 2000, 5000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000].find((s) => spanMs / s <= 10) ?? 1_200_000;
}

function timeline(r: ScenarioResult): string {
  const span = Math.max(1, r.endedAt - r.startedAt);
  const x = (t: number) => LEFT + ((t - r.startedAt) / span) * (RIGHT - LEFT);
  const faultLabel = (f: ScenarioResult['faults'][number]) => (f.error ? `${f.label} (not staged: ${f.error})` : f.label);
  const labels = placeLabels(r.faults.map((f) => ({ x: x(f.start), text: faultLabel(f) })));
  const labelRows = Math.max(1, ...labels.map((l) => l.row + 1));
  const top = 6 + labelRows * LABEL_ROW_H + 4;
  const y = (lane: number) => top + lane * LANE_H + LANE_H / 2;
  const lanesEnd = top + LANES.length * LANE_H;
  const height = lanesEnd + 20;
  const parts: string[] = [];
  r.faults.forEach((f, i) => {
    const end = Number.isFinite(f.end) ? f.end : r.endedAt;
    const label = labels[i]!;
    const labelY = 6 + label.row * LABEL_ROW_H + 10;
    parts.push(
      `<rect class="fault" x="${x(f.start).toFixed(1)}" y="${labelY - 10}" width="${Math.max(2, x(end) - x(f.start)).toFixed(1)}" height="${lanesEnd - labelY + 10}"><title>${esc(faultLabel(f))}</title></rect>`,
      `<text class="fault-label${f.error ? ' error' : ''}" x="${label.x.toFixed(1)}" y="${labelY}">${esc(faultLabel(f))}</text>`,
    );
  });
  LANES.forEach((label, i) => {
    parts.push(`<text class="lane" x="8" y="${y(i) + 4}">${label}</text>`, `<line class="grid" x1="${LEFT}" x2="${RIGHT}" y1="${y(i)}" y2="${y(i)}"/>`);
  });
  for (const a of r.attempts) {
    const ok = typeof a.status === 'number' && a.status < 300;
    const lane = ok ? (a.route === 'cloud' ? 1 : 0) : 2;
    const colour = ok ? (a.route === 'cloud' ? COLOURS.cloud : COLOURS.hub) : COLOURS.none;
    const tip = `${a.eventId} attempt ${a.retryNum}: ${a.status}${a.claim ? `, claim ${a.claim}` : ''}${a.answeredAt ? `, ${a.answeredAt - a.sentAt} ms` : ''}`;
    parts.push(
      `<circle class="attempt${a.retryNum > 0 ? ' retry' : ''}" cx="${x(a.sentAt).toFixed(1)}" cy="${y(lane)}" r="${a.retryNum > 0 ? 4.5 : 3}" fill="${a.retryNum > 0 ? 'none' : colour}" stroke="${colour}"><title>${esc(tip)}</title></circle>`,
    );
  }
  for (const reply of r.replies) {
    const colour = reply.by === 'cloud' ? COLOURS.cloud : reply.by === 'hub' ? COLOURS.hub : COLOURS.reply;
    parts.push(
      `<rect class="reply" x="${x(reply.at).toFixed(1)}" y="${y(3) - 6}" width="2" height="12" fill="${colour}"><title>reply by ${reply.by}</title></rect>`,
    );
  }
  const firstSend = new Map<string, number>();
  for (const a of r.attempts) if (!firstSend.has(a.mention)) firstSend.set(a.mention, a.sentAt);
  for (const m of r.score.lostMentions) {
    parts.push(`<text class="mark lost" x="${x(firstSend.get(m) ?? r.startedAt).toFixed(1)}" y="${y(4) + 5}">✕<title>lost: ${esc(m)}</title></text>`);
  }
  for (const m of r.score.doubledMentions) {
    parts.push(
      `<text class="mark doubled" x="${x(firstSend.get(m) ?? r.startedAt).toFixed(1)}" y="${y(4) + 5}">②<title>answered twice: ${esc(m)}</title></text>`,
    );
  }
  const step = tickStep(span);
  // Ticks short of the end, where the span itself is written.
  for (let t = 0; x(r.startedAt + t) < RIGHT - 44; t += step) {
    const at = x(r.startedAt + t);
    parts.push(
      `<line class="tick" x1="${at.toFixed(1)}" x2="${at.toFixed(1)}" y1="${lanesEnd}" y2="${lanesEnd + 4}"/>`,
      `<text class="axis" x="${at.toFixed(1)}" y="${lanesEnd + 15}">${t / 1000} s</text>`,
    );
  }
  parts.push(`<text class="axis end" x="${RIGHT}" y="${lanesEnd + 15}">${(span / 1000).toFixed(1)} s</text>`);
  return `<svg class="timeline" data-scenario="${esc(r.name)}" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="timeline of ${esc(r.name)}">${parts.join('')}</svg>`;
}

const rowClass = (r: ScenarioResult) => (failed(r) ? 'fail' : r.score.duplicateReplies > 0 || lostByDesign(r) ? 'dups' : 'pass');

function row(r: ScenarioResult): string {
  const cells = COLUMNS.map((c, i) => {
    const text = esc(c.cell(r));
    return `<td>${i === 0 ? `<a href="#${sectionId(r.name)}">${text}</a>` : text}</td>`;
  });
  return `<tr class="${rowClass(r)}">${cells.join('')}</tr>`;
}

/** The report's facts about the run, beside the results. */
export interface ReportMeta {
  factor: number;
  store: string;
  generatedAt: string;
  /** What the copies logged, by scenario. */
  logs?: Record<string, CopyLog>;
  /** The level they logged at. */
  logLevel?: string;
  /** The file that holds every line they logged (beside the report). */
  logFile?: string;
}

/** What the copies logged in a scenario: each event counted, the first lines as logged, the rest in the log file. */
function copyLog(log: CopyLog | undefined, meta: ReportMeta): string {
  if (log === undefined) return '';
  const level = meta.logLevel ? ` at ${esc(meta.logLevel)} and above` : '';
  if (log.lines === 0) return `<p class="log">The copies logged nothing${level}.</p>`;
  const counts = log.events.map((e) => `${esc(e.event)} (${esc(e.level)}) ×${e.count}`).join(', ');
  const more = log.lines - log.first.length;
  const rest = more > 0 ? `<p class="log">…and ${more} more line(s)${meta.logFile ? ` in ${esc(meta.logFile)}` : ''}.</p>` : '';
  return `<details class="log"><summary>The copies' log: ${log.lines} line(s)${level}: ${counts}</summary><pre>${log.first.map(esc).join('\n')}</pre>${rest}</details>`;
}

function section(r: ScenarioResult, meta: ReportMeta): string {
  const lines = [
    ...(r.duplicatesPossible ? [`Stated up front: ${r.duplicatesPossible}.`] : []),
    ...(r.lostByDesign ? [`Lost by design (${lostByDesign(r) ?? 'none'}), stated up front: ${r.lostByDesign}.`] : []),
    ...r.faults.filter((f) => f.error).map((f) => `Fault not staged: ${f.label}: ${f.error}.`),
    ...(r.unmet ?? []).map((u) => `Unmet: ${u}.`),
    ...(r.notExercised ?? []).map((u) => `Not exercised by this bot: ${u}.`),
  ];
  return `<section id="${sectionId(r.name)}"><h2>${esc(r.name)} <span class="verdict ${rowClass(r)}">${esc(verdict(r))}</span> <a class="up" href="#summary">↑ table</a></h2><p class="summary">${esc(r.summary)}</p>${lines.map((l) => `<p class="note">${esc(l)}</p>`).join('')}${timeline(r)}${sample(r)}${copyLog(meta.logs?.[r.name], meta)}</section>`;
}

/** How many replies each scenario shows as they were written. */
export const SAMPLE_REPLIES = 3;

/** A few of the scenario's replies as the person read them: the first, one from the middle, the last; each with the copy that wrote it. */
function sample(r: ScenarioResult): string {
  const written = r.replies.filter((x) => x.text !== undefined);
  if (written.length === 0) return '';
  const picks = [...new Set([0, Math.floor(written.length / 2), written.length - 1])].slice(0, SAMPLE_REPLIES).map((i) => written[i]!);
  const who = (by: string) => (by === 'hub' ? 'hub' : by === 'cloud' ? 'cloud copy' : 'unknown copy');
  return `<ul class="sample" aria-label="sample replies">${picks
    .map((x) => `<li><span class="by ${esc(x.by)}">${who(x.by)}</span> ${esc(x.text!.length >= 300 ? `${x.text!}…` : x.text!)}</li>`)
    .join('')}</ul>`;
}

export function renderHtml(results: readonly ScenarioResult[], meta: ReportMeta): string {
  const failures = results.filter((r) => failed(r)).length;
  const below = notes(results);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>autohub failover drill</title>
<style>
body{font:13px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;margin:20px;color:#1d1d1f;background:#fff}
h1{font-size:20px;margin:0 0 4px} h2{font-size:15px;margin:18px 0 2px} a{color:inherit} a.up{font-size:11px;font-weight:normal;color:#777;margin-left:8px}
.summary{color:#555;margin:0 0 4px} .meta{color:#555;margin:2px 0} .note{color:#8a5a00;margin:2px 0}
table{border-collapse:collapse;margin:10px 0} th,td{padding:3px 7px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap} th{font-weight:600;border-bottom:2px solid #bbb}
th:first-child,td:first-child{text-align:left} th:last-child,td:last-child{text-align:left;white-space:normal;min-width:14em} td:first-child a{text-decoration:none;border-bottom:1px dotted #999}
tr.fail td{color:#d2283c;font-weight:600} tr.dups td{color:#8a5a00} tbody tr:nth-child(even){background:#f7f7f8}
.verdict{font-size:12px;font-weight:600;padding:1px 6px;border-radius:4px} .verdict.pass{background:#e3f3e6;color:#1f7a35} .verdict.dups{background:#fbf0d9;color:#8a5a00} .verdict.fail{background:#fbe0e3;color:#d2283c}
.legend span{display:inline-block;margin-right:14px} .dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px;vertical-align:middle}
svg.timeline{border:1px solid #e3e3e3;border-radius:6px;background:#fcfcfc;max-width:100%;height:auto;display:block}
.fault{fill:#999;fill-opacity:.14} .fault-label{font-size:11px;fill:#555} .fault-label.error{fill:#d2283c} .lane{font-size:11px;fill:#333} .grid{stroke:#e6e6e6} .tick{stroke:#bbb}
.sample{margin:6px 0 0;padding:0;list-style:none;color:#333} .sample li{margin:2px 0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:1100px}
.sample .by{display:inline-block;min-width:76px;font-size:11px;color:#555} .sample .by.hub{color:${COLOURS.hub}} .sample .by.cloud{color:${COLOURS.cloud}}
.log{color:#555;margin:6px 0 0} .log summary{cursor:pointer} .log pre{font:11px/1.35 ui-monospace,Menlo,monospace;white-space:pre-wrap;word-break:break-all;background:#f7f7f8;padding:6px;margin:4px 0;max-height:320px;overflow:auto}
.axis{font-size:10px;fill:#777;text-anchor:middle} .axis.end{text-anchor:end} .mark{font-size:13px;text-anchor:middle} .lost{fill:#d2283c} .doubled{fill:#8a5a00} .retry{stroke-width:2}
</style></head><body>
<h1>autohub failover drill</h1>
<p class="meta">${results.length} scenario(s), ${failures === 0 ? 'all passed' : `${failures} failed`}. Time factor ${meta.factor} (Slack's 1- and 5-minute retries arrive after ${(60 / meta.factor).toFixed(2)} s and ${(300 / meta.factor).toFixed(2)} s). Claim store: ${esc(meta.store)}.${meta.logFile ? ` The copies' log: ${esc(meta.logFile)}.` : ''} Generated ${esc(meta.generatedAt)}.</p>
<p class="meta">dup: duplicate replies; dead: dead letters; half: replies left half-written; caught up: answered by the catch-up sweep after Slack gave up; late: answered over 10 s after it was sent; max wait: the longest wait for a first reply; &gt;3s: acks later than Slack's 3 s.</p>
<table id="summary"><thead><tr>${COLUMNS.map((c) => `<th>${esc(c.header)}</th>`).join('')}</tr></thead>
<tbody>${results.map(row).join('')}</tbody></table>
${below.map((l) => `<p class="note">${esc(l)}</p>`).join('')}
<p class="legend"><span><i class="dot" style="background:${COLOURS.hub}"></i>hub</span><span><i class="dot" style="background:${COLOURS.cloud}"></i>cloud copy</span><span><i class="dot" style="background:${COLOURS.none}"></i>not accepted (Slack retries)</span><span>ringed: a Slack retry</span><span>shaded: a fault</span><span>✕ lost, ② answered twice</span></p>
${results.map((r) => section(r, meta)).join('\n')}
</body></html>
`;
}
