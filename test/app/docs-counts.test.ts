/**
 * A count of the drill's scenarios in the docs is read from the code or not written: the docs said 22
 * while 31 ran. Any "N scenarios" or "N/N scenarios" left in README.md or docs/ must be the count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../drill/scenarios.js';

const ROOT = join(import.meta.dirname, '../..');
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

describe("the docs' scenario counts", () => {
  it.each(pages)('%s names no scenario count but the one the code has', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const counts = [...text.matchAll(/\b(\d+)(?:\/(\d+))? (?:failure )?scenarios\b/g)].flatMap((m) => [m[1], m[2]].filter((n) => n !== undefined).map(Number));
    for (const n of counts) expect(n, `"${n} scenarios" in ${page}`).toBe(SCENARIOS.length);
  });
});
