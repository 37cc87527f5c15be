/**
 * `npm run setup` writes the deploy's files from three names, and each is
 * checked by its own tool or schema: manifest.json as Slack reads it (the
 * checks of test/deploy/files.test.ts), wrangler.toml by `wrangler deploy
 * --dry-run`, the LaunchAgents by Python's plistlib (the XML property-list
 * format plutil writes and lints), the cloudflared config against the rules
 * cloudflared states for ingress (the last rule catches everything).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binDirsFor, runSetup } from '../../app/cli/setup.js';
import { capture } from '../support/capture.js';

const REPO = process.cwd();
const TUNNEL_ID = '6ff42ae2-765d-4adf-8112-31c55c1551ef';
const EDGE = 'https://my-edge.alice.workers.dev';
const CLOUD = 'https://autohub-production.up.railway.app';

describe('npm run setup', () => {
  let dir: string;
  let home: string;
  const printed = capture();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'autohub-setup-'));
    home = mkdtempSync(join(tmpdir(), 'autohub-home-'));
    for (const f of ['manifest.json', 'wrangler.toml', 'package.json']) cpSync(join(REPO, f), join(dir, f));
    for (const d of ['app', 'lib', 'node_modules']) symlinkSync(join(REPO, d), join(dir, d), 'dir');
    // What `cloudflared tunnel create` leaves behind.
    mkdirSync(join(home, '.cloudflared'));
    writeFileSync(join(home, '.cloudflared', `${TUNNEL_ID}.json`), '{}');
    const argv = [
      '--dir',
      dir,
      '--worker',
      'my-edge',
      '--workers-dev',
      'alice',
      '--hub-host',
      'hub.alice.dev',
      '--cloud-url',
      `${CLOUD}/`,
      '--owner',
      'U012ABCDEF',
    ];
    expect(await runSetup(argv, printed.out, home)).toBe(0);
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it("writes manifest.json's three URLs at the edge and changes nothing else Slack reads", () => {
    const original = JSON.parse(readFileSync(join(REPO, 'manifest.json'), 'utf8'));
    const written = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const url = `${EDGE}/slack/events`;
    original.settings.event_subscriptions.request_url = url;
    original.settings.interactivity.request_url = url;
    original.features.slash_commands[0].url = url;
    expect(written).toEqual(original);
    // What Slack requires of the manifest, as test/deploy/files.test.ts checks the project's own.
    expect(written.settings.socket_mode_enabled).toBe(false);
    expect(written.settings.interactivity).toEqual({ is_enabled: true, request_url: url });
    expect(written.features.slash_commands).toEqual([expect.objectContaining({ command: '/autohub', url })]);
  });

  it('writes wrangler.toml that `wrangler deploy --dry-run` bundles, with the name and both copies as vars', () => {
    const toml = readFileSync(join(dir, 'wrangler.toml'), 'utf8');
    expect(toml).toMatch(/^name = "my-edge"$/m);
    expect(toml).toMatch(/^HUB_URL = "https:\/\/hub\.alice\.dev"$/m);
    expect(toml).toMatch(new RegExp(`^CLOUD_URL = "${CLOUD.replace(/[./]/g, '\\$&')}"$`, 'm'));
    const out = mkdtempSync(join(tmpdir(), 'autohub-setup-bundle-'));
    const result = spawnSync(join(REPO, 'node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', out, '--config', join(dir, 'wrangler.toml')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
      timeout: 120_000,
    });
    rmSync(out, { recursive: true, force: true });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('https://hub.alice.dev');
    // wrangler cuts a long value in its table: its start is enough to see it is the var.
    expect(result.stdout).toContain('env.CLOUD_URL ("https://autohub-production.up.railway');
  }, 120_000);

  const plist = (name: string) => {
    const read = spawnSync(
      'python3',
      ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))', join(dir, 'deploy', name)],
      {
        encoding: 'utf8',
      },
    );
    expect(read.status, read.stderr).toBe(0);
    return JSON.parse(read.stdout) as Record<string, unknown>;
  };

  it("writes a LaunchAgent for the hub that a plist parser reads: npm start in the project, kept running, found on the Mac's PATH", () => {
    const agent = plist('com.autohub.hub.plist');
    expect(agent).toMatchObject({ Label: 'com.autohub.hub', WorkingDirectory: dir, RunAtLoad: true, KeepAlive: true });
    expect(agent.ProgramArguments).toEqual(['/usr/bin/env', 'npm', 'start']);
    // Run here (not a Mac), setup knows nothing of the Mac's node: Homebrew's and the installers' folders, not this machine's.
    expect((agent.EnvironmentVariables as { PATH: string }).PATH).toBe('/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin');
  });

  it('writes a LaunchAgent for the tunnel, with the config setup wrote, kept running, cloudflared found on the same PATH', () => {
    const agent = plist('com.autohub.tunnel.plist');
    expect(agent).toMatchObject({ Label: 'com.autohub.tunnel', RunAtLoad: true, KeepAlive: true });
    expect(agent.ProgramArguments).toEqual(['/usr/bin/env', 'cloudflared', 'tunnel', '--config', join(dir, 'deploy', 'cloudflared.yml'), 'run']);
    expect((agent.EnvironmentVariables as { PATH: string }).PATH).toMatch(/^\/opt\/homebrew\/bin:\/usr\/local\/bin:/);
  });

  it('the LaunchAgents look first where they are told (--node, --cloudflared), or, run on the Mac, where its shell finds them', () => {
    expect(binDirsFor({ node: '/Users/alice/.nvm/versions/node/v24.1.0/bin/node', cloudflared: '/Users/alice/bin/cloudflared' }, 'linux')).toEqual([
      '/Users/alice/.nvm/versions/node/v24.1.0/bin',
      '/Users/alice/bin',
    ]);
    expect(binDirsFor({}, 'linux')).toEqual([]);
    expect(binDirsFor({}, 'darwin')[0]).toBe(join(process.execPath, '..'));
  });

  it("writes a cloudflared config: the named tunnel, its credentials, the hub's host to the local port, and a catch-all last rule", () => {
    const yml = readFileSync(join(dir, 'deploy', 'cloudflared.yml'), 'utf8');
    const lines = yml.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    expect(lines).toEqual([
      'tunnel: autohub-hub',
      `credentials-file: "${join(home, '.cloudflared', `${TUNNEL_ID}.json`)}"`,
      'ingress:',
      '  - hostname: hub.alice.dev',
      '    service: http://localhost:3000',
      '  - service: http_status:404',
    ]);
  });

  it('prints the Railway variables as one command and the Worker secrets, every secret from the shell, none in clear', () => {
    const text = printed.lines.join('\n');
    const railway = text.split('\n').find((l) => l.trim().startsWith('railway variables'))!;
    for (const set of [
      '--set "AUTOHUB_ROLE=cloud"',
      '--set "AUTOHUB_PEER_URL=https://hub.alice.dev"',
      `--set "AUTOHUB_EDGE_URL=${EDGE}"`,
      '--set "RAILPACK_PRUNE_DEPS=true"',
      '--set "AUTOHUB_OWNER=U012ABCDEF"',
      '--set "SLACK_SIGNING_SECRET=$SLACK_SIGNING_SECRET"',
      '--set "UPSTASH_REDIS_REST_TOKEN=$UPSTASH_REDIS_REST_TOKEN"',
    ])
      expect(railway).toContain(set);
    expect(text).toContain('printf %s "$SLACK_SIGNING_SECRET" | npx wrangler secret put SLACK_SIGNING_SECRET');
    // The edge's inbox (README step 6) needs the store: before, setup left these out.
    expect(text).toContain('printf %s "$UPSTASH_REDIS_REST_URL" | npx wrangler secret put UPSTASH_REDIS_REST_URL');
    expect(text).toContain('printf %s "$UPSTASH_REDIS_REST_TOKEN" | npx wrangler secret put UPSTASH_REDIS_REST_TOKEN');
    expect(text).toContain('[ -z "$AUTOHUB_STORE_KEY" ] || printf %s "$AUTOHUB_STORE_KEY" | npx wrangler secret put AUTOHUB_STORE_KEY');
    // The Railway CLI's way and the dashboard's.
    expect(text).toContain('npm install -g @railway/cli');
    expect(text).toContain('     AUTOHUB_ROLE=cloud\n');
    expect(text).toContain('     UPSTASH_REDIS_REST_TOKEN=<as in .env>\n');
    expect(text).toContain('     AUTOHUB_OWNER=U012ABCDEF\n');
    expect(text).toContain(`AUTOHUB_PEER_URL=${CLOUD}`);
    // The deploy order: the Worker before Slack checks its URL.
    expect(text.indexOf('npx wrangler deploy')).toBeLessThan(text.indexOf('Create New App'));
  });

  it('without --owner it still prints AUTOHUB_OWNER, to fill in, and Railway takes it from .env', async () => {
    const c = capture();
    expect(await runSetup(['--dir', dir, '--edge-url', EDGE, '--hub-host', 'hub.alice.dev', '--cloud-url', CLOUD], c.out, home)).toBe(0);
    const text = c.lines.join('\n');
    expect(text).toMatch(/^ {5}AUTOHUB_OWNER=U\.\.\. {3}# your Slack member id/m);
    expect(text).toContain('--set "AUTOHUB_OWNER=$AUTOHUB_OWNER"');
  });

  it("deploy/ (this machine's tunnel config and LaunchAgents) is ignored by git", () => {
    const ignored = spawnSync('git', ['check-ignore', 'deploy/com.autohub.hub.plist'], { cwd: REPO, encoding: 'utf8' });
    expect(ignored.stdout.trim()).toBe('deploy/com.autohub.hub.plist');
  });

  it('without the names it needs (and no terminal to ask on) it names each missing flag, exit 2, and writes nothing', async () => {
    const c = capture();
    const before = readFileSync(join(dir, 'manifest.json'), 'utf8');
    expect(await runSetup(['--dir', dir], c.out, home)).toBe(2);
    expect(c.errors[0]).toMatch(/^setup: missing --edge-url or --workers-dev, --hub-host, --cloud-url; usage: npm run setup/);
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe(before);
  });

  it.each([
    [['--cloud-url', 'http://plain.example.com'], /--cloud-url takes an https:\/\/ URL/],
    [['--hub-host', 'not a host'], /--hub-host takes a hostname/],
    [['--owner', 'alice'], /--owner takes your Slack member id/],
  ])('%j is refused with one line naming it', async (bad, message) => {
    const good: Record<string, string> = { '--edge-url': EDGE, '--hub-host': 'hub.alice.dev', '--cloud-url': CLOUD };
    good[bad[0]!] = bad[1]!;
    const c = capture();
    expect(await runSetup(['--dir', dir, ...Object.entries(good).flat()], c.out, home)).toBe(2);
    expect(c.errors[0]).toMatch(message);
  });

  it("subscribes to channels' messages only for a bot that exports followUps (AUTOHUB_TURN), and says so; a bot that cannot load stops it with its line", async () => {
    const argv = ['--dir', dir, '--edge-url', EDGE, '--hub-host', 'hub.alice.dev', '--cloud-url', CLOUD];
    writeFileSync(join(dir, 'plain-bot.mjs'), "export function takeTurn() { return 'ok'; }\n");
    writeFileSync(join(dir, 'follow-bot.mjs'), "export const followUps = { minutes: 30 };\nexport function takeTurn() { return 'ok'; }\n");
    const events = () => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).settings.event_subscriptions.bot_events;
    expect(await runSetup(argv, capture().out, home, 'linux', { AUTOHUB_TURN: 'plain-bot.mjs' })).toBe(0);
    expect(events()).toEqual(['app_context_changed', 'app_home_opened', 'app_mention', 'message.im']);
    const c = capture();
    expect(await runSetup(argv, c.out, home, 'linux', { AUTOHUB_TURN: 'follow-bot.mjs' })).toBe(0);
    expect(events()).toEqual(['app_context_changed', 'app_home_opened', 'app_mention', 'message.channels', 'message.groups', 'message.im', 'message.mpim']);
    expect(c.lines.join('\n')).toMatch(/followUps: manifest\.json subscribes to message\.channels, message\.groups, message\.mpim/);
    const bad = capture();
    expect(await runSetup(argv, bad.out, home, 'linux', { AUTOHUB_TURN: 'no-such-bot.mjs' })).toBe(2);
    expect(bad.errors[0]).toMatch(/^setup: AUTOHUB_TURN /);
  });
});
