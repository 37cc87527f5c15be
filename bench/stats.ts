/** Percentiles and a plain side-by-side table for `npm run bench`. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean };
}

export function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return String(value);
  return value.toFixed(digits);
}

/** Print rows as an aligned table, the first row being the header. */
export function printTable(title: string, rows: readonly (readonly string[])[]): void {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? '').length)));
  console.log(`\n## ${title}`);
  rows.forEach((row, i) => {
    console.log(row.map((cell, col) => cell.padEnd(widths[col]!)).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
}
