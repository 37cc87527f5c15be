// `npm run build`: app/ and lib/ compiled into a clean dist/node, marked built
// only when tsc succeeded (scripts/dist.mjs says why).
import { build, canBuild } from './dist.mjs';

if (!canBuild()) {
  process.stderr.write('autohub: cannot build: TypeScript is not installed (a production install); run `npm ci` first, then `npm run build`\n');
  process.exit(1);
}
if (!build()) {
  process.stderr.write('autohub: the build failed (errors above); dist/node holds no build\n');
  process.exit(1);
}
