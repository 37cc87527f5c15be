/**
 * A Node older than package.json's engines stops every npm script at its `pre` hook with one line naming
 * the version needed (before: Node 20 installed with 35 EBADENGINE warnings and ran with no word from autohub).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types (it must run on any Node, before anything is built)
import { minimumMajor, tooOld } from '../../scripts/node-version.mjs';

const ENGINES = JSON.parse(readFileSync('package.json', 'utf8')).engines.node as string;

describe('the Node version check', () => {
  it.each([
    ['20.20.2', true],
    ['22.15.0', true],
    ['23.11.0', true],
    ['24.0.0', false],
    ['26.12.1', false],
    ['v20.1.0', true],
  ])('Node %s is too old: %s', (version, old) => {
    expect(tooOld(version, ENGINES) !== undefined).toBe(old);
  });

  it('reads the least major version from the engines range, not a number of its own', () => {
    expect(minimumMajor('24.x || 26.x')).toBe(24);
    expect(minimumMajor('>=22.15.0')).toBe(22);
  });

  it.each(['scripts/ensure-build.mjs', 'scripts/dev-only.mjs'])(
    '%s (the pre hook of npm start, the tools, dev, drill and try) stops on an old Node with one line, exit 1, building nothing',
    (script) => {
      // Node 20 as this process sees it: process.versions says so before the hook loads.
      const result = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.11.1' } }); await import('./${script}');`,
        ],
        { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        'autohub: Node 20.11.1 is too old: autohub needs Node 24.x or 26.x (package.json engines); install it (nvm install 24) and run again\n',
      );
    },
  );
});
