/**
 * The values in `.env` reach `process.env`, so a model
 * SDK that reads its key from there (ANTHROPIC_API_KEY) finds it; the real
 * environment still wins, and AUTOHUB_ENV_FILE=none reads nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportEnvFile } from '../../lib/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'autohub-env-'));
const envFile = (body: string) => {
  const path = join(dir, `.env-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, body);
  return path;
};

describe('exportEnvFile', () => {
  it("puts the file's values into the environment where it has none, and returns them merged", () => {
    const target: Record<string, string | undefined> = { AUTOHUB_ROLE: 'cloud' };
    const merged = exportEnvFile(target, envFile('ANTHROPIC_API_KEY=sk-from-file\nAUTOHUB_ROLE=hub\nMY_TOOL_TOKEN=abc\n'));
    expect(target).toEqual({ AUTOHUB_ROLE: 'cloud', ANTHROPIC_API_KEY: 'sk-from-file', MY_TOOL_TOKEN: 'abc' });
    expect(merged.AUTOHUB_ROLE).toBe('cloud');
  });

  it('the environment wins, even with an empty value, and an empty value in the file sets nothing', () => {
    const target: Record<string, string | undefined> = { ANTHROPIC_API_KEY: '' };
    exportEnvFile(target, envFile('ANTHROPIC_API_KEY=sk-from-file\nAUTOHUB_INSTANCE=\n'));
    expect(target).toEqual({ ANTHROPIC_API_KEY: '' });
  });

  it('AUTOHUB_ENV_FILE=none reads no file', () => {
    const target: Record<string, string | undefined> = { AUTOHUB_ENV_FILE: 'none' };
    exportEnvFile(target);
    expect(target).toEqual({ AUTOHUB_ENV_FILE: 'none' });
  });

  it('AUTOHUB_ENV_FILE names the file to read', () => {
    const target: Record<string, string | undefined> = { AUTOHUB_ENV_FILE: envFile('ANTHROPIC_API_KEY=sk-named\n') };
    exportEnvFile(target);
    expect(target.ANTHROPIC_API_KEY).toBe('sk-named');
  });

  it('a missing file changes nothing', () => {
    const target: Record<string, string | undefined> = { A: '1' };
    exportEnvFile(target, join(dir, 'missing.env'));
    expect(target).toEqual({ A: '1' });
  });

  it('the Anthropic SDK, built with no options, finds the key the file gave (in a process of its own)', () => {
    const path = envFile('ANTHROPIC_API_KEY=sk-ant-from-dotenv\n');
    const script = [
      "import { exportEnvFile } from './lib/config/index.ts';",
      "const { default: Anthropic } = await import('@anthropic-ai/sdk');",
      'exportEnvFile();',
      'process.stdout.write(String(new Anthropic().apiKey));',
    ].join('\n');
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: path },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('sk-ant-from-dotenv');
  });
});
