/** A page as headless Chromium leaves it once loaded (its scripts run): for the drill's report. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's chromium, or CHROMIUM_BIN where there is none (e.g. Chrome on a Mac). */
export const CHROMIUM_BIN = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/** The flags every headless run here takes: no sandbox (CI containers), no GPU, nothing fetched from the network. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

export function dumpDom(path: string): string {
  return execFileSync(
    process.env.CHROMIUM_BIN ?? 'chromium',
    ['--headless', ...CHROMIUM_FLAGS, `--user-data-dir=${mkdtempSync(join(tmpdir(), 'chromium-'))}`, '--dump-dom', `file://${path}`],
    { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] },
  );
}
