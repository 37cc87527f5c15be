/**
 * `npm run bench [-- --section NAME]`: every section, or one, each printing
 * its figures beside the baseline its issue names, measured in the same run.
 */
import { benchClaim } from './claim.js';
import { benchCost } from './cost.js';
import { benchDrill } from './drill.js';
import { benchEdge } from './edge.js';
import { benchRateLimit } from './ratelimit.js';
import { benchReceiver } from './receiver.js';
import { benchStart } from './start.js';

const sections: Record<string, () => Promise<void>> = {
  claim: () => benchClaim(),
  receiver: () => benchReceiver(),
  ratelimit: () => benchRateLimit(),
  edge: () => benchEdge(),
  drill: () => benchDrill(),
  cost: () => benchCost(),
  start: () => benchStart(),
};

const i = process.argv.indexOf('--section');
const only = i >= 0 ? process.argv[i + 1] : undefined;
if (only !== undefined && !(only in sections)) {
  console.error(`bench: unknown section ${JSON.stringify(only)}; one of ${Object.keys(sections).join(', ')}`);
  process.exit(2);
}
console.log(`autohub bench on node ${process.version}, ${new Date().toISOString()}`);
for (const [name, run] of Object.entries(sections)) {
  if (only && name !== only) continue;
  await run();
}
