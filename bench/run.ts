/**
 * `npm run bench [-- --section NAME]`: every section, or one, each printing
 * its figures beside the baseline its issue names, measured in the same run.
 */
import { helpAsked, parseCli, wholeNumber } from '../app/cli/args.js';
import { UsageError } from '../lib/errors/index.js';
import { benchClaim } from './claim.js';
import { benchCost } from './cost.js';
import { benchDrill } from './drill.js';
import { benchEdge } from './edge.js';
import { benchLoad } from './load.js';
import { benchRateLimit } from './ratelimit.js';
import { benchReceiver } from './receiver.js';
import { benchStart } from './start.js';
import { benchStream } from './stream.js';
import { benchTurn } from './turn.js';
import { benchWire } from './wire.js';

let profile = false;
let pin = false;
let slots: number | undefined;
const sections: Record<string, () => Promise<void>> = {
  claim: () => benchClaim(),
  receiver: () => benchReceiver(),
  ratelimit: () => benchRateLimit(),
  edge: () => benchEdge(),
  drill: () => benchDrill(),
  cost: () => benchCost(),
  start: () => benchStart(),
  load: () => benchLoad(),
  stream: () => benchStream(),
  turn: () => benchTurn({ profile, pin, slots }),
  wire: () => benchWire(),
};

const USAGE = `usage: npm run bench -- [--section ${Object.keys(sections).join('|')}] [--profile] [--pin] [--slots N]`;
if (helpAsked(process.argv.slice(2), USAGE)) process.exit(0);
let only: string | undefined;
try {
  const { values } = parseCli(
    process.argv.slice(2),
    { section: { type: 'string' }, profile: { type: 'boolean' }, pin: { type: 'boolean' }, slots: { type: 'string' } },
    USAGE,
  );
  only = values.section;
  profile = values.profile === true;
  pin = values.pin === true;
  // The bounds of the copy's own AUTOHUB_MAX_TURNS (lib/config/app-config.ts).
  slots = values.slots === undefined ? undefined : wholeNumber(values.slots, '--slots', 1, 1000, 16);
  if (only !== undefined && !(only in sections)) throw new UsageError(`unknown section ${JSON.stringify(only)}; ${USAGE}`);
} catch (error) {
  console.error(`bench: ${(error as Error).message}`);
  process.exit(2);
}
console.log(`autohub bench on node ${process.version}, ${new Date().toISOString()}`);
for (const [name, run] of Object.entries(sections)) {
  if (only && name !== only) continue;
  await run();
}
