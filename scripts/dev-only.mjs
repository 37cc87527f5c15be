// Runs before the development tools (`npm run dev`, `drill`, `bench`): they
// run TypeScript straight from the sources through tsx, a dev dependency. In
// a production install (`npm ci --omit=dev`) this says so in one line instead
// of the shell's "tsx: not found".
// First: on a Node too old, one line and exit 1 before anything else loads.
import './node-version.mjs';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (!existsSync(fileURLToPath(new URL('../node_modules/tsx/package.json', import.meta.url)))) {
  process.stderr.write(
    `autohub: \`npm run ${process.env.npm_lifecycle_event?.replace(/^pre/, '') ?? 'this'}\` is a development tool and needs the dev dependencies: run \`npm ci\` first\n`,
  );
  process.exit(1);
}
