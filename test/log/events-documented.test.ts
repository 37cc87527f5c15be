/**
 * Every structured log event the code writes is named in docs/logs.md, the page an
 * operator reads to know what a line means. Without this, an event added to the code
 * reaches production logs with no word of what it means or what to do about it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

/** The first argument of every `.debug(`/`.info(`/`.warn(`/`.error(` call, and every `event: '...'` field. */
function eventsIn(code: string): string[] {
  const found = new Set<string>();
  const name = /'([a-z][a-z_]*(?:\.[a-z_]+)+)'/g;
  for (const call of code.matchAll(/\.(?:debug|info|warn|error)\(\s*/g)) {
    // The first argument: up to the first comma or closing parenthesis outside brackets.
    let depth = 0;
    let end = call.index + call[0].length;
    for (; end < code.length; end++) {
      const c = code[end];
      if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    for (const m of code.slice(call.index + call[0].length, end).matchAll(name)) found.add(m[1] as string);
  }
  for (const m of code.matchAll(/\bevent: '([a-z][a-z_]*(?:\.[a-z_]+)+)'/g)) found.add(m[1] as string);
  return [...found];
}

describe('docs/logs.md names every log event', () => {
  const documented = new Set([...readFileSync(join(ROOT, 'docs/logs.md'), 'utf8').matchAll(/`([a-z][a-z_]*(?:\.[a-z_]+)+)`/g)].map((m) => m[1]));
  const written = new Map<string, string>();
  for (const file of [...sources('lib'), ...sources('app')]) for (const event of eventsIn(readFileSync(join(ROOT, file), 'utf8'))) written.set(event, file);

  it('finds the events the code writes, ternaries included', () => {
    expect(eventsIn("o.log.warn(kind === 'failing' ? 'legs.leg_down' : 'legs.leg_recovered', { leg });")).toEqual(['legs.leg_down', 'legs.leg_recovered']);
    expect(eventsIn("log.info('turn.replied', { via: 'chat.postMessage' })")).toEqual(['turn.replied']);
    expect(written.size).toBeGreaterThan(100);
  });

  it('every event the code writes has a row', () => {
    const missing = [...written].filter(([event]) => !documented.has(event)).map(([event, file]) => `${event} (${file})`);
    expect(missing).toEqual([]);
  });
});
