import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnEdge } from '../support/edge-process.js';

const run = (entry: string, env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', entry], {
    env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: 'none', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });

describe('entry points', () => {
  it.each([
    ['app/cli/deadletter.ts', 'npm run deadletter'],
    ['app/cli/verify.ts', 'npm run verify'],
    ['app/cli/audit.ts', 'npm run audit'],
    ['app/cli/setup.ts', 'npm run setup'],
    ['drill/cli.ts', 'npm run drill'],
    ['bench/run.ts', 'npm run bench'],
  ])('%s --help prints its usage line and exits 0 (before: "unknown argument", exit 2)', (entry, command) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', entry, '--help'], {
      env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: 'none' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(new RegExp(`^usage: ${command} `));
  });

  it('`npm start` with a missing setting stops with one line naming it', () => {
    const result = run('app/main.ts', { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('autohub: AUTOHUB_ROLE is not set: expected one of hub, cloud');
  });

  it('`npm start` with a malformed setting says what it should look like', () => {
    const result = run('app/main.ts', { AUTOHUB_ROLE: 'hub', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PORT: 'eighty' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('autohub: PORT is invalid: expected a whole number from 0 to 65535, received "eighty"');
  });

  it('`npm run edge` without HUB_URL stops with one line naming it', () => {
    const result = run('app/edge-node.ts', { CLOUD_URL: 'http://127.0.0.1:1' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(/^autohub edge: HUB_URL is not set: expected the copy's base URL/);
  });

  it('`npm run edge` without SLACK_SIGNING_SECRET stops with one line naming it', () => {
    const result = run('app/edge-node.ts', { HUB_URL: 'http://127.0.0.1:1', CLOUD_URL: 'http://127.0.0.1:1' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(/^autohub edge: SLACK_SIGNING_SECRET is not set: expected the Slack app's signing secret/);
  });

  it('`npm run edge` serves its health on PORT and exits 0 on SIGTERM', async () => {
    const edge = await spawnEdge('edge-test-secret', { AUTOHUB_HEALTH_TOKEN: 'edge-health-token-0123' });
    const { child, port, exited } = edge;
    try {
      expect(edge.output()).toContain('"edge.started"');
      expect(await (await fetch(`http://127.0.0.1:${port}/slack/health`)).json()).toEqual({ status: 'ok' });
      const health = await fetch(`http://127.0.0.1:${port}/slack/health`, { headers: { authorization: 'Bearer edge-health-token-0123' } });
      expect(await health.json()).toMatchObject({ status: 'ok', role: 'edge', hub: { state: 'unknown' } });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('the command-line tools from an awkward path', () => {
  // A checkout reached through a symlink in a folder whose name has a space and a percent sign:
  // a tool comparing `import.meta.url` with `file://${argv[1]}` would exit 0 having done nothing.
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true }); // removes the link, never the checkout it points at
  });
  const awkward = () => {
    const dir = mkdtempSync(join(tmpdir(), 'auto hub 100%-'));
    made.push(dir);
    const link = join(dir, 'my checkout');
    symlinkSync(process.cwd(), link);
    return link;
  };

  it.each([
    ['audit', ['--bogus'], /^audit: unknown argument "--bogus"; usage: npm run audit/],
    ['deadletter', ['--bogus'], /^deadletter: unknown argument "--bogus"; usage: npm run deadletter/],
    ['verify', ['--bogus'], /^verify: unknown argument "--bogus"; usage: npm run verify/],
    ['drill', ['--bogus'], /^drill: unknown argument "--bogus"; usage: npm run drill/],
  ])('`npm run %s -- %s` exits 2 with its usage', (tool, args, message) => {
    const root = awkward();
    // The drill's CLI lives with the drill (a development tool); the others ship in app/cli.
    const entry = tool === 'drill' ? join(root, 'drill', 'cli.ts') : join(root, 'app', 'cli', `${tool}.ts`);
    const result = spawnSync(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', AUTOHUB_ENV_FILE: 'none' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toMatch(message);
  });
});
