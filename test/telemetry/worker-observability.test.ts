/** The edge Worker keeps its logs in Cloudflare (Workers Logs): wrangler.toml's [observability], and wrangler takes it. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe("wrangler.toml's [observability]", () => {
  it('turns Workers Logs on for every request, in a table wrangler reads without a warning', () => {
    const toml = readFileSync('wrangler.toml', 'utf8');
    const table = /^\[observability\]\n((?:[^[\n].*\n)*)/m.exec(toml)?.[1] ?? '';
    expect(table).toMatch(/^enabled = true$/m);
    expect(table).toMatch(/^head_sampling_rate = 1$/m);
    const out = mkdtempSync(join(tmpdir(), 'autohub-obs-'));
    try {
      const result = spawnSync(join('node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', out], {
        encoding: 'utf8',
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
      });
      expect(result.status, result.stderr).toBe(0);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/observability/i);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
