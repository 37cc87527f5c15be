import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../lib/config/index.js';
import { COMMAND_SCOPE, EVENT_SCOPES, METHOD_SCOPES } from '../../lib/slack/index.js';

const manifest = JSON.parse(readFileSync('manifest.json', 'utf8'));
const scopes: string[] = manifest.oauth_config.scopes.bot;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every `client.<family>.<method>(` the app's code makes. */
function calledMethods(): Set<string> {
  const found = new Set<string>();
  for (const file of [...sources('app'), ...sources('lib')]) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bclient\.([a-z]+(?:\.[a-z]+)?)\.([a-zA-Z]+)\(/g)) found.add(`${m[1]}.${m[2]}`);
  }
  return found;
}

describe('manifest.json', () => {
  it('has what Slack requires to create the app', () => {
    expect(manifest.display_information.name).toBeTruthy();
    expect(manifest.features.bot_user.display_name).toBeTruthy();
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    expect(manifest.settings.event_subscriptions.bot_events.sort()).toEqual(['app_context_changed', 'app_home_opened', 'app_mention', 'message.im']);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
  });

  it('points events, interactivity and /autohub at the same edge URL', () => {
    const url = manifest.settings.event_subscriptions.request_url;
    expect(url).toMatch(/^https:\/\/.+\/slack\/events$/);
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: url });
    expect(manifest.features.slash_commands).toEqual([expect.objectContaining({ command: '/autohub', url })]);
  });

  it('gives every subscribed event its scope', () => {
    for (const event of manifest.settings.event_subscriptions.bot_events as string[]) {
      expect(EVENT_SCOPES[event], `a scope entry for ${event}`).toBeDefined();
      for (const scope of EVENT_SCOPES[event]!) expect(scopes, `${event} needs ${scope}`).toContain(scope);
    }
    expect(scopes).toContain(COMMAND_SCOPE);
  });

  it('allows every Web API method the code calls', () => {
    const methods = calledMethods();
    expect(methods.has('chat.postMessage')).toBe(true);
    for (const method of methods) {
      expect(METHOD_SCOPES[method], `lib/slack/scopes.ts must name the scopes of ${method}`).toBeDefined();
      for (const scope of METHOD_SCOPES[method]!) expect(scopes, `${method} needs ${scope}`).toContain(scope);
    }
  });

  it("declares the agent view (Slack's Agent messaging experience: a DM opened, its prompts, the context) with the one scope its methods name", () => {
    // web-api 8.2's ManifestAgentView: "Maximum length is 300 characters"; assistant_view "will eventually be deprecated".
    expect(manifest.features.agent_view.agent_description).toMatch(/^.{1,300}$/);
    expect(manifest.features.assistant_view).toBeUndefined();
    expect(METHOD_SCOPES['assistant.threads.setSuggestedPrompts']).toEqual(['assistant:write']);
    expect(METHOD_SCOPES['assistant.threads.setTitle']).toEqual(['assistant:write']);
    expect(scopes).toContain('assistant:write');
    // Interactivity carries the feedback buttons' clicks (block_actions).
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
  });

  it('does not ask for assistant:write without the agent or assistant view Slack requires for it (setStatus takes chat:write since 2026-03)', () => {
    if (scopes.includes('assistant:write')) expect(manifest.features.agent_view ?? manifest.features.assistant_view).toBeDefined();
    expect(METHOD_SCOPES['assistant.threads.setStatus']).toEqual(['chat:write']);
  });

  it('asks for no scope that nothing needs', () => {
    const needed = new Set([COMMAND_SCOPE, ...Object.values(EVENT_SCOPES).flat(), ...[...calledMethods()].flatMap((m) => METHOD_SCOPES[m] ?? [])]);
    expect(scopes.filter((s) => !needed.has(s))).toEqual([]);
  });
});

describe('railway.json', () => {
  const railway = JSON.parse(readFileSync('railway.json', 'utf8'));
  it('builds with `npm run build`, the one build that marks dist/node built: without the mark a pruned image refuses to start', () => {
    expect(railway.build.buildCommand).toBe('npm run build');
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.build).toBe('node scripts/build.mjs');
  });
  it('starts the app, checks its health route, restarts it, and drains at least as long as a shutdown may take', () => {
    expect(railway.deploy.startCommand).toBe('npm start');
    expect(railway.deploy.healthcheckPath).toBe('/slack/health');
    expect(railway.deploy.restartPolicyType).toBe('ON_FAILURE');
    const { drainMs } = parseAppConfig({ AUTOHUB_ROLE: 'cloud', SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'xoxb-1' });
    expect(railway.deploy.drainingSeconds * 1000).toBeGreaterThanOrEqual(drainMs);
  });
});

describe('.env.example', () => {
  it('names, with a comment, every variable the code reads', () => {
    const example = readFileSync('.env.example', 'utf8');
    const read = new Set<string>();
    for (const file of [...sources('lib/config'), ...sources('lib/edge'), 'app/edge-node.ts']) {
      for (const m of readFileSync(file, 'utf8').matchAll(/'((?:AUTOHUB|SLACK|UPSTASH|EDGE|HUB|CLOUD|PORT)[A-Z_]*)'/g)) read.add(m[1]!);
    }
    expect(read.size).toBeGreaterThan(15);
    for (const name of read) expect(example, `${name} in .env.example`).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });
});

describe('package.json', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

  it('runs every command a deploy uses from dist/, after checking the build: through tsx they would need the dev dependencies', () => {
    for (const name of ['start', 'edge', 'deadletter', 'verify', 'audit']) {
      expect(pkg.scripts[name], name).toMatch(/^node (--enable-source-maps )?dist\/node\/app\/[\w/-]+\.js$/);
      expect(pkg.scripts[`pre${name}`], `pre${name}`).toBe('node scripts/ensure-build.mjs');
    }
  });

  it('lists as a runtime dependency every package the built app and tools import, and no build tool', () => {
    const runtime = new Set(Object.keys(pkg.dependencies));
    const imported = new Set<string>();
    for (const file of [...sources('app'), ...sources('lib')]) {
      for (const m of readFileSync(file, 'utf8').matchAll(/^import (?!type )[^;]*?from '([^'.][^']*)'/gms)) {
        const name = m[1]!.startsWith('@') ? m[1]!.split('/').slice(0, 2).join('/') : m[1]!.split('/')[0]!;
        if (!name.startsWith('node:')) imported.add(name);
      }
    }
    expect(imported.size).toBeGreaterThan(3);
    for (const name of imported) expect(runtime, `${name} in dependencies`).toContain(name);
    for (const tool of ['tsx', 'typescript', '@types/node', 'vitest', 'wrangler', 'miniflare', 'esbuild', '@biomejs/biome'])
      expect(runtime).not.toContain(tool);
  });

  it("names in allowScripts (npm's install-script policy) every package in the lockfile with an install script, so npm install warns of none", () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const scripted = new Set(
      Object.entries(lock.packages)
        .filter(([, p]) => p.hasInstallScript)
        .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
    );
    expect(scripted.size).toBeGreaterThan(0);
    for (const name of scripted) expect(pkg.allowScripts?.[name], `allowScripts.${name}`).toBe(true);
    // Name-only entries: the lockfile pins the versions, and a pinned entry would warn again at every upgrade of workerd.
    expect(Object.keys(pkg.allowScripts).sort()).toEqual([...scripted].sort());
  });

  it('promises the Node lines CI runs the suite on', () => {
    const ci = readFileSync('.ci/run', 'utf8');
    const tested = [...ci.matchAll(/^NODE\d+_VERSION=(\d+)\.\d+\.\d+$/gm)].map((m) => `${m[1]}.x`).sort();
    expect(tested.length).toBeGreaterThan(1);
    expect(pkg.engines.node.split(' || ').sort()).toEqual(tested);
  });
});

describe('wrangler.toml', () => {
  it('deploys the Worker entry with both copies and the budget as vars', () => {
    const toml = readFileSync('wrangler.toml', 'utf8');
    expect(toml).toMatch(/^main = "app\/edge-worker.ts"$/m);
    for (const v of ['HUB_URL', 'CLOUD_URL', 'EDGE_HUB_TIMEOUT_MS', 'EDGE_CLOUD_TIMEOUT_MS', 'EDGE_BUDGET_MS'])
      expect(toml).toMatch(new RegExp(`^${v} = "`, 'm'));
  });

  it('sets a compatibility date no later than the workerd that wrangler and miniflare bundle (a later one fails the deploy or the tests)', () => {
    const date = /^compatibility_date = "(\d{4})-(\d{2})-(\d{2})"$/m.exec(readFileSync('wrangler.toml', 'utf8'))?.slice(1).join('');
    expect(date).toMatch(/^\d{8}$/);
    for (const owner of ['wrangler', 'miniflare']) {
      const nested = join('node_modules', owner, 'node_modules', 'workerd', 'package.json');
      const workerd = JSON.parse(readFileSync(existsSync(nested) ? nested : join('node_modules', 'workerd', 'package.json'), 'utf8')).version as string;
      const bundled = /^1\.(\d{8})\./.exec(workerd)?.[1];
      expect(bundled, `${owner}'s workerd ${workerd}`).toBeDefined();
      expect(Number(date), `${owner}'s workerd ${workerd}`).toBeLessThanOrEqual(Number(bundled));
    }
  });
});
