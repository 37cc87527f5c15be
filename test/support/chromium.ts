/** A page as headless Chromium leaves it once loaded (its scripts run): for the drill's report. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function dumpDom(path: string): string {
  // CHROMIUM_BIN points elsewhere on machines without Debian's chromium (e.g. Chrome on a Mac).
  return execFileSync(
    process.env.CHROMIUM_BIN ?? 'chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${mkdtempSync(join(tmpdir(), 'chromium-'))}`,
      '--dump-dom',
      `file://${path}`,
    ],
    { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] },
  );
}
