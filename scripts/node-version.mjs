// The first thing every npm script runs (its `pre` hook imports this before
// anything else): on a Node older than package.json's engines allow, one line
// naming the version needed, and exit 1, instead of npm's EBADENGINE warnings
// and a stack trace from whichever API the old Node lacks.
//
// Plain Node, no dependencies, syntax any Node since 12 parses.
import { readFileSync } from 'node:fs';

/** The oldest major version `engines.node` allows ("24.x || 26.x" -> 24). */
export function minimumMajor(engines) {
  const majors = [...String(engines).matchAll(/(\d+)(?:\.x|\.\d+)*/g)].map((m) => Number(m[1]));
  return majors.length === 0 ? undefined : Math.min(...majors);
}

/** The line to stop with, or undefined when `version` is new enough. Pure. */
export function tooOld(version, engines) {
  const least = minimumMajor(engines);
  const major = Number(String(version).replace(/^v/, '').split('.')[0]);
  if (least === undefined || !(major < least)) return undefined;
  return `autohub: Node ${String(version).replace(/^v/, '')} is too old: autohub needs Node ${String(engines).replace(/\s*\|\|\s*/g, ' or ')} (package.json engines); install it (nvm install ${least}) and run again`;
}

const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines?.node;
const line = tooOld(process.versions.node, engines);
if (line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
