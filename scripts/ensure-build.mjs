// Runs before `npm start` and each command-line tool (`prestart`, `preaudit`,
// ...): they run the built JavaScript in dist/node, so this makes sure it is
// the build of the sources on disk, and never the output of a failed build.
//
// - Current (dist/node/build.json holds the sources' hash): nothing to do.
//   Railway runs `npm run build` before `npm start`, so there this costs one
//   read of the sources.
// - Missing or stale, TypeScript installed (a clone, `npm ci`): build, and run
//   only if the build succeeded.
// - Missing or stale in a production install (`npm ci --omit=dev`, no tsc):
//   refuse with one line saying to run `npm run build`. Running a stale build
//   would run code that is not the code on disk (an edit, a pull, a restored
//   cache would silently not take effect); on Railway a refused start fails
//   the deploy's health check and the previous deployment keeps serving.
// First: on a Node too old, one line and exit 1 before anything else loads.
import './node-version.mjs';
import { build, builtHash, canBuild, sourcesHash } from './dist.mjs';

const built = builtHash();
if (built !== sourcesHash()) {
  const why = built === undefined ? 'dist/node holds no finished build' : 'the sources changed since the last build';
  if (!canBuild()) {
    process.stderr.write(
      `autohub: ${why}, and this install has no TypeScript to build it (production dependencies only): run \`npm ci\` and \`npm run build\`, then start again\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`autohub: ${why}; building\n`);
  if (!build()) {
    process.stderr.write('autohub: the build failed (errors above); nothing was started\n');
    process.exit(1);
  }
}
