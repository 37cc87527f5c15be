/** Every Web API method the shipped code (lib/, app/) calls: `client.x.y(`, and the rate-limit audit's raw sweep. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SWEEP } from '../../lib/ratelimit/audit.js';

const ROOT = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

export function methodsCalled(): Set<string> {
  const found = new Set<string>(SWEEP.map(([method]) => method));
  for (const file of [...sources(join(ROOT, 'lib')), ...sources(join(ROOT, 'app'))]) {
    for (const m of readFileSync(file, 'utf8').matchAll(
      /\bclient\.((?:chat|conversations|assistant\.threads|users|auth|views|reactions|apps|team|bots|files)\.\w+)\(/g,
    ))
      found.add(m[1]!);
  }
  return found;
}
