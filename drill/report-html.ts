/**
 * The drill's report as one self-contained HTML page (no network needed): a
 * timeline per scenario with every delivery attempt on a time axis, coloured
 * by the copy that answered it, the fault windows shaded, Slack's retries
 * ringed, lost and doubled turns marked, and the table.
 */
import type { ScenarioResult } from './run-scenario.js';
import { failed } from './report-table.js';

const COLOURS = { hub: '#2f6fdf', cloud: '#e8871e', none: '#d2283c', reply: '#4a4a4a' } as const;
const LANES = ['attempts answered by the hub', 'attempts answered by the cloud copy', 'attempts no copy accepted', 'replies posted', 'lost / doubled'] as const;
const W = 960;
const LANE_H = 34;
const LEFT = 250;
const TOP = 24;

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function timeline(r: ScenarioResult): string {
  const span = Math.max(1, r.endedAt - r.startedAt);
  const x = (t: number) => LEFT + ((t - r.startedAt) / span) * (W - LEFT - 16);
  const y = (lane: number) => TOP + lane * LANE_H + LANE_H / 2;
  const height = TOP + LANES.length * LANE_H + 28;
  const parts: string[] = [];
  for (const f of r.faults) {
    const end = Number.isFinite(f.end) ? f.end : r.endedAt;
    parts.push(
      `<rect class="fault" x="${x(f.start).toFixed(1)}" y="${TOP - 16}" width="${Math.max(2, x(end) - x(f.start)).toFixed(1)}" height="${LANES.length * LANE_H + 16}"><title>${esc(f.label)}</title></rect>`,
      `<text class="fault-label" x="${(x(f.start) + 3).toFixed(1)}" y="${TOP - 5}">${esc(f.label)}</text>`,
    );
  }
  LANES.forEach((label, i) => {
    parts.push(`<text class="lane" x="8" y="${y(i) + 4}">${label}</text>`, `<line class="grid" x1="${LEFT}" x2="${W - 16}" y1="${y(i)}" y2="${y(i)}"/>`);
  });
  for (const a of r.attempts) {
    const ok = typeof a.status === 'number' && a.status < 300;
    const lane = ok ? (a.route === 'cloud' ? 1 : 0) : 2;
    const colour = ok ? (a.route === 'cloud' ? COLOURS.cloud : COLOURS.hub) : COLOURS.none;
    const tip = `${a.eventId} attempt ${a.retryNum}: ${a.status}${a.claim ? `, claim ${a.claim}` : ''}${a.answeredAt ? `, ${a.answeredAt - a.sentAt} ms` : ''}`;
    parts.push(
      `<circle class="attempt${a.retryNum > 0 ? ' retry' : ''}" cx="${x(a.sentAt).toFixed(1)}" cy="${y(lane)}" r="${a.retryNum > 0 ? 5 : 3}" fill="${a.retryNum > 0 ? 'none' : colour}" stroke="${colour}"><title>${esc(tip)}</title></circle>`,
    );
  }
  for (const reply of r.replies) {
    const colour = reply.by === 'cloud' ? COLOURS.cloud : reply.by === 'hub' ? COLOURS.hub : COLOURS.reply;
    parts.push(
      `<rect class="reply" x="${x(reply.at).toFixed(1)}" y="${y(3) - 7}" width="2" height="14" fill="${colour}"><title>reply by ${reply.by}</title></rect>`,
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
  parts.push(
    `<text class="axis" x="${LEFT}" y="${height - 6}">0 s</text>`,
    `<text class="axis" x="${W - 60}" y="${height - 6}">${(span / 1000).toFixed(1)} s</text>`,
  );
  return `<svg class="timeline" data-scenario="${esc(r.name)}" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="timeline of ${esc(r.name)}">${parts.join('')}</svg>`;
}

function row(r: ScenarioResult): string {
  const s = r.score;
  const served = s.servedByHub + s.servedByCloud || 1;
  const cells = [
    r.name,
    s.sent,
    s.answered,
    s.lost,
    s.duplicateReplies,
    s.retries,
    `${Math.round((s.servedByHub / served) * 100)}%`,
    `${Math.round((s.servedByCloud / served) * 100)}%`,
    s.takenOver,
    `${Math.round(s.ackP50Ms)} ms`,
    `${Math.round(s.ackP99Ms)} ms`,
    s.deadlineMisses,
    failed(r) ? 'FAIL' : 'ok',
  ];
  return `<tr class="${failed(r) ? 'fail' : 'pass'}">${cells.map((c) => `<td>${esc(String(c))}</td>`).join('')}</tr>`;
}

export function renderHtml(results: readonly ScenarioResult[], meta: { factor: number; store: string; generatedAt: string }): string {
  const sections = results
    .map(
      (r) =>
        `<section><h2>${esc(r.name)} <small>${esc(r.summary)}</small></h2>${r.duplicatesPossible ? `<p class="note">Stated up front: ${esc(r.duplicatesPossible)}.</p>` : ''}${timeline(r)}</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>autohub failover drill</title>
<style>
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1d1d1f;background:#fff}
h1{font-size:22px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 6px} h2 small{font-weight:normal;color:#555}
table{border-collapse:collapse;margin:12px 0} th,td{padding:4px 10px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap} th:first-child,td:first-child{text-align:left}
tr.fail td{color:#d2283c;font-weight:600} .meta{color:#555} .note{color:#8a5a00;margin:2px 0}
.legend span{display:inline-block;margin-right:16px} .dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px;vertical-align:middle}
svg.timeline{border:1px solid #e3e3e3;border-radius:6px;background:#fcfcfc;max-width:100%;height:auto}
.fault{fill:#999;fill-opacity:.16} .fault-label{font-size:11px;fill:#666} .lane{font-size:12px;fill:#333} .grid{stroke:#e6e6e6}
.axis{font-size:11px;fill:#777} .mark{font-size:14px;text-anchor:middle} .lost{fill:#d2283c} .doubled{fill:#8a5a00} .retry{stroke-width:2}
</style></head><body>
<h1>autohub failover drill</h1>
<p class="meta">Time factor ${meta.factor} (Slack's 1- and 5-minute retries arrive after ${(60 / meta.factor).toFixed(2)} s and ${(300 / meta.factor).toFixed(2)} s). Claim store: ${esc(meta.store)}. Generated ${esc(meta.generatedAt)}.</p>
<p class="legend"><span><i class="dot" style="background:${COLOURS.hub}"></i>hub</span><span><i class="dot" style="background:${COLOURS.cloud}"></i>cloud copy</span><span><i class="dot" style="background:${COLOURS.none}"></i>not accepted (Slack retries)</span><span>ringed: a Slack retry</span><span>shaded: a fault</span><span>✕ lost, ② answered twice</span></p>
<table><thead><tr><th>scenario</th><th>sent</th><th>answered</th><th>lost</th><th>dup</th><th>retries</th><th>hub</th><th>cloud</th><th>taken over</th><th>ack p50</th><th>ack p99</th><th>&gt;3 s</th><th>verdict</th></tr></thead>
<tbody>${results.map(row).join('')}</tbody></table>
${sections}
</body></html>
`;
}
