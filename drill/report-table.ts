/** The drill's table for a terminal: colour on a TTY, plain otherwise. */
import type { ScenarioResult } from './run-scenario.js';

/**
 * A scenario fails on a fault it could not stage, a mention lost or left
 * half-written, an expectation of its own unmet (`unmet`), a duplicate it did not state up front, or (unless
 * `slowAcks: false`) an ack later than Slack's 3 s: Slack would retry it.
 */
export function failed(result: ScenarioResult, options: { slowAcks?: boolean } = {}): boolean {
  const s = result.score;
  return (
    result.faults.some((f) => f.error !== undefined) ||
    (result.unmet?.length ?? 0) > 0 ||
    s.lost > 0 ||
    (s.halfWritten ?? 0) > 0 ||
    (s.duplicateReplies > 0 && !result.duplicatesPossible) ||
    (options.slowAcks !== false && s.deadlineMisses > 0)
  );
}

export function renderTable(results: readonly ScenarioResult[], colour: boolean): string {
  const paint = (code: number, text: string) => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const pct = (n: number, of: number) => (of === 0 ? '-' : `${Math.round((n / of) * 100)}%`);
  const header = [
    'scenario',
    'sent',
    'answered',
    'lost',
    'dup',
    'retries',
    'hub',
    'cloud',
    'taken over',
    'dead',
    'half',
    'caught up',
    'late',
    'max wait',
    'ack p50',
    'ack p99',
    '>3s',
    'verdict',
  ];
  const rows = results.map((r) => {
    const s = r.score;
    const served = s.servedByHub + s.servedByCloud;
    const verdict = failed(r) ? 'FAIL' : s.duplicateReplies > 0 ? 'ok (dups stated)' : 'ok';
    return [
      r.name,
      String(s.sent),
      String(s.answered),
      String(s.lost),
      String(s.duplicateReplies),
      String(s.retries),
      pct(s.servedByHub, served),
      pct(s.servedByCloud, served),
      String(s.takenOver),
      String(s.deadLetters ?? 0),
      String(s.halfWritten ?? 0),
      String(s.caughtUp),
      String(s.late),
      `${(s.maxWaitMs / 1000).toFixed(1)} s`,
      `${Math.round(s.ackP50Ms)} ms`,
      `${Math.round(s.ackP99Ms)} ms`,
      String(s.deadlineMisses),
      verdict,
    ];
  });
  const widths = header.map((_, i) => Math.max(header[i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const out = [paint(1, line(header)), widths.map((w) => '-'.repeat(w)).join('  ')];
  rows.forEach((cells, i) => {
    const r = results[i]!;
    const text = line(cells);
    out.push(failed(r) ? paint(31, text) : r.score.duplicateReplies > 0 ? paint(33, text) : paint(32, text));
  });
  for (const r of results) if (r.duplicatesPossible) out.push(`note: ${r.name}: ${r.duplicatesPossible}`);
  for (const r of results) for (const f of r.faults) if (f.error) out.push(`fault not staged: ${r.name}: ${f.label}: ${f.error}`);
  return out.join('\n');
}
