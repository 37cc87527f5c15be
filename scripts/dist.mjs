// The build of dist/node and how to tell whether it is current, shared by
// `npm run build` (scripts/build.mjs) and `npm start` (scripts/ensure-build.mjs).
//
// A build compiles app/ and lib/ into a clean dist/node, then writes
// dist/node/build.json, the hash of the sources it compiled. Only a build that
// succeeded writes it: tsc emits JavaScript even when it reports errors, so
// the output's age says nothing about whether it is good (a failed rebuild
// must not be started as if fresh). dist/node is current when
// build.json holds the hash of the sources on disk now.
//
// Plain Node and node: modules only: this also runs in a production install
// (`npm ci --omit=dev`), where TypeScript is absent.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist', 'node');
const STAMP = join(OUT, 'build.json');
/** What tsconfig.build.json compiles, and the settings it compiles them with. */
const SOURCE_DIRS = ['app', 'lib'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A hash of every source the build reads (paths and contents, not times: a checkout or a copy resets times). */
export function sourcesHash() {
  const hash = createHash('sha256');
  const paths = [...SOURCE_DIRS.flatMap((dir) => files(join(ROOT, dir))), ...CONFIGS.map((name) => join(ROOT, name))].sort();
  for (const path of paths) {
    hash.update(`${relative(ROOT, path)}\0`);
    hash.update(readFileSync(path));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The hash the last successful build recorded, or undefined when there is none. */
export function builtHash() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')).sources;
  } catch {
    return undefined;
  }
}

/** False in a production install, where the dev dependencies (TypeScript among them) are not installed. */
export function canBuild() {
  return existsSync(TSC);
}

/** Compiles into a clean dist/node; true when tsc succeeded (and the stamp is written). */
export function build() {
  const sources = sourcesHash();
  // Clean first: a file whose source was deleted or moved must not linger, and no stamp survives a failed build.
  rmSync(OUT, { recursive: true, force: true });
  const result = spawnSync(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) return false;
  mkdirSync(OUT, { recursive: true });
  writeFileSync(STAMP, `${JSON.stringify({ sources })}\n`);
  return true;
}
