// `npm start` runs the built JavaScript in dist/node. Before it does, this
// builds (`npm run build`) when dist/node is missing or older than any source
// file, so a fresh clone or an edited checkout never runs stale code. Railway
// runs `npm run build` itself before `npm start`, so there this finds the
// build fresh and costs a directory walk.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const built = 'dist/node/app/main.js';

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

let builtAt = 0;
try {
  builtAt = statSync(built).mtimeMs;
} catch {
  builtAt = 0;
}
const sources = Math.max(newest('app'), newest('lib'), statSync('tsconfig.json').mtimeMs, statSync('tsconfig.build.json').mtimeMs);
if (builtAt < sources) {
  process.stderr.write(builtAt === 0 ? 'autohub: building (first start)\n' : 'autohub: sources changed since the last build; building\n');
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
