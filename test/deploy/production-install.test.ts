/**
 * What a deploy runs, run for real in a scratch copy of the checkout: built with the dev
 * dependencies, then installed as Railway's pruned image or a server is (`npm ci --omit=dev`),
 * and every command started through npm as a user starts it. The copy sits in a folder whose
 * name has a space and a percent sign, where a tool that compares `import.meta.url` with
 * `file://${argv[1]}` would exit 0 having done nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebApi } from '../../drill/sim/fake-web-api.js';
import { deliver, mentionEnvelope } from '../../drill/sim/slack-events.js';
import { eventually, repliesTo } from '../support/copies.js';

const REPO = process.cwd();
/** What the build and the running copy read; tests, benches and docs stay behind. */
const SHIPPED = ['app', 'lib', 'drill', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'auto hub 100%-'));
  for (const entry of SHIPPED) cpSync(join(REPO, entry), join(dir, entry), { recursive: true });
  return dir;
}

/**
 * What npm needs to find its cache and reach its registry, no more: never the parent npm's
 * npm_config_local_prefix (it would aim npm at this checkout). The way out is kept: a machine
 * behind a proxy that signs with its own CA trusts it through NODE_EXTRA_CA_CERTS or npm's
 * cafile, and without them every request fails with SELF_SIGNED_CERT_IN_CHAIN.
 */
function env(extra: Record<string, string> = {}): Record<string, string> {
  const reach = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'npm_config_cafile', 'npm_config_ca', 'npm_config_strict_ssl'];
  const proxies = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY', 'npm_config_proxy', 'npm_config_https_proxy'];
  const keep = ['HOME', 'npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', ...reach, ...proxies];
  const base = Object.fromEntries(keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]!]])));
  // `npm test` and `npx` put this checkout's node_modules/.bin on PATH, where tsx and tsc would be found.
  const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes(`node_modules${sep}.bin`));
  return { ...base, PATH: path.join(delimiter), AUTOHUB_ENV_FILE: 'none', npm_config_update_notifier: 'false', ...extra };
}

const npm = (cwd: string, args: string[], extra: Record<string, string> = {}) =>
  spawnSync('npm', ['--silent', ...args], { cwd, env: env(extra), encoding: 'utf8', timeout: 120_000 });

/** `npm start` with nothing set: every missing setting named at once. */
const MISSING_ROLE = [
  'autohub: 3 settings cannot be used:',
  '  AUTOHUB_ROLE is not set: expected one of hub, cloud',
  '  SLACK_BOT_TOKEN is not set: expected a bot token starting with xoxb-',
  "  SLACK_SIGNING_SECRET is not set: expected the app's signing secret from Basic Information",
].join('\n');

/**
 * The owner's bot: TypeScript (an interface, annotations, `import type`) that imports an npm package of its
 * own, kept by the prune because it is in `dependencies` (`npm install --save-prod`, as the README says).
 */
const TS_BOT = `import Anthropic from '@anthropic-ai/sdk';
import { NonRetryableError, type TurnRequest } from 'autohub/bot';

interface Reply {
  text: string;
}

export function takeTurn(request: TurnRequest): string {
  if (request.text.trim() === '') throw new NonRetryableError('nothing to answer');
  const reply: Reply = { text: \`\${Anthropic.name} bot, in TypeScript, heard: \${request.text.trim()}\` };
  return reply.text;
}
`;

/**
 * A bot kept outside the project's tree (no node_modules/autohub above it), in TypeScript, importing the
 * contract: autohub's own lib/errors is TypeScript with parameter properties, which Node's stripping
 * refuses, so the entry must be the build's JavaScript.
 */
const OUTSIDE_BOT = `import { RetryableError, RetryAfterError, type TakeTurn } from 'autohub/bot';

export const takeTurn: TakeTurn = (request) => {
  const later = new RetryAfterError('later', 2);
  return \`outside bot heard \${request.text.trim()}: \${later.retryAfterMs} ms, retryable \${later instanceof RetryableError}\`;
};
`;
const SDK_VERSION = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).devDependencies['@anthropic-ai/sdk'] as string;

describe('a production install (`npm ci --omit=dev` after `npm run build`)', () => {
  let dir: string;

  beforeAll(() => {
    dir = scratchCopy();
    // The bot's own package, as the owner adds it: to dependencies (here into package.json and the lockfile only).
    const added = npm(dir, [
      'install',
      '--save-prod',
      '--save-exact',
      `@anthropic-ai/sdk@${SDK_VERSION}`,
      '--package-lock-only',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      // npm's own errors, should it fail (the rest of the file runs npm --silent).
      '--loglevel=error',
    ]);
    expect(added.status, added.stderr).toBe(0);
    mkdirSync(join(dir, 'bots'));
    writeFileSync(join(dir, 'bots', 'claude-bot.ts'), TS_BOT);
    // Build as Railway does: with the dev dependencies (this checkout's), then prune them.
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const built = npm(dir, ['run', 'build']);
    expect(built.status, built.stderr).toBe(0);
    unlinkSync(join(dir, 'node_modules')); // the link only: npm ci would otherwise empty this checkout's node_modules
    const installed = npm(dir, ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline']);
    expect(installed.status, installed.stderr).toBe(0);
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ships no build tools, and `npm start` runs the built app: with tsx or typescript as runtime dependencies they would ship', () => {
    expect(existsSync(join(dir, 'node_modules', '@slack', 'bolt'))).toBe(true);
    for (const tool of ['typescript', 'tsx', 'vitest', 'wrangler', 'miniflare', 'esbuild'])
      expect(existsSync(join(dir, 'node_modules', tool)), tool).toBe(false);
    const started = npm(dir, ['start']);
    expect(started.status).toBe(1);
    expect(started.stderr.trim()).toBe(MISSING_ROLE);
  });

  /** `npm start` with `turn` as AUTOHUB_TURN, sent one mention saying hello: the text of its reply, and the copy's output. */
  async function answerWith(turn: string, eventId: string): Promise<{ reply: string | undefined; output: string }> {
    const api = await startFakeWebApi();
    const copy = spawn('npm', ['--silent', 'start'], {
      cwd: dir,
      env: env({
        AUTOHUB_ROLE: 'hub',
        AUTOHUB_INSTANCE: 'hub-prod',
        SLACK_SIGNING_SECRET: 'prod-install-secret',
        SLACK_BOT_TOKEN: 'xoxb-prod-install',
        SLACK_API_URL: api.url,
        PORT: '0',
        AUTOHUB_TURN: turn,
        AUTOHUB_REFUSAL_LOG: 'off',
        AUTOHUB_JOURNAL: 'off',
        AUTOHUB_CATCHUP: 'off',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so the stop reaches the copy npm started too (npm does not pass SIGTERM on: the copy outlived the test).
      detached: true,
    });
    let output = '';
    copy.stdout.on('data', (d: Buffer) => (output += d));
    copy.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => copy.on('exit', resolve));
    try {
      await eventually(() => output.includes('"app.started"') || copy.exitCode !== null, 'the copy to start', 30_000);
      const started = output.split('\n').find((l) => l.includes('"app.started"'));
      expect(started, output).toBeDefined();
      const { port } = JSON.parse(started!) as { port: number };
      const envelope = mentionEnvelope({ eventId, ts: '1700009000.000100', text: '<@UAUTOHUB> hello' });
      expect((await deliver(`http://127.0.0.1:${port}/slack/events`, envelope, { signingSecret: 'prod-install-secret' })).status).toBe(200);
      await eventually(() => repliesTo(api, eventId).length > 0 || output.includes('"turn.failed"'), 'the reply', 30_000);
      const reply = repliesTo(api, eventId)[0];
      return { reply: reply?.params.text ?? reply?.params.markdown_text, output };
    } finally {
      if (copy.pid !== undefined && copy.exitCode === null) process.kill(-copy.pid, 'SIGTERM');
      await exited;
      await api.close();
    }
  }

  it('`npm start` answers with a TypeScript bot that imports a package of its own and autohub/bot: no tsx, Node strips the types', async () => {
    expect(existsSync(join(dir, 'node_modules', '@anthropic-ai', 'sdk')), 'the bot package kept by the prune').toBe(true);
    const { reply, output } = await answerWith('bots/claude-bot.ts', 'Ev-prod-ts');
    expect(reply, output).toBe('Anthropic bot, in TypeScript, heard: hello');
    expect(output).not.toContain('tsx');
  }, 60_000);

  it('a TypeScript bot outside the project imports autohub/bot: the built contract, with its types, found without node_modules/autohub', async () => {
    const types = readFileSync(join(dir, 'dist', 'node', 'lib', 'bot', 'index.d.ts'), 'utf8');
    for (const name of ['RetryableError', 'RetryAfterError', 'NonRetryableError', 'TurnModule', 'RegisterHelpers']) expect(types).toContain(name);
    const outside = mkdtempSync(join(tmpdir(), 'outside-bot-'));
    try {
      writeFileSync(join(outside, 'bot.ts'), OUTSIDE_BOT);
      const { reply, output } = await answerWith(join(outside, 'bot.ts'), 'Ev-prod-outside');
      expect(reply, output).toBe('outside bot heard hello: 2000 ms, retryable true');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);

  it.each([
    ['audit', /^audit: unknown argument "--bogus"; usage: npm run audit/],
    ['deadletter', /^deadletter: unknown argument "--bogus"; usage: npm run deadletter/],
    ['verify', /^verify: unknown argument "--bogus"; usage: npm run verify/],
  ])('`npm run %s` runs from dist/: a tool run through tsx fails with "tsx: not found" here', (tool, usage) => {
    const result = npm(dir, ['run', tool, '--', '--bogus']);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toMatch(usage);
  });

  it('`npm run audit` does its work from dist/: it replays a refusal log offline', () => {
    const log = join(dir, 'refusals.jsonl');
    writeFileSync(log, '');
    const result = npm(dir, ['run', 'audit', '--', '--record', log, '--no-sweep']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe('0 sweep call(s), 0 replayed refusal(s), 0 mishandled');
  });

  it('`npm run edge` runs from dist/ and stops with one line naming a missing setting', () => {
    const result = npm(dir, ['run', 'edge'], { CLOUD_URL: 'http://127.0.0.1:1' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(/^autohub edge: HUB_URL is not set/);
  });

  it('`npm run drill` says in one line that it needs the dev dependencies, not "tsx: not found"', () => {
    const result = npm(dir, ['run', 'drill', '--', '--bogus']);
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('autohub: `npm run drill` is a development tool and needs the dev dependencies: run `npm ci` first');
  });

  it('never starts a build older than its sources: with no tsc to rebuild it says to run `npm run build`, and runs nothing', () => {
    const edit = join(dir, 'lib', 'edited-after-the-build.ts');
    writeFileSync(edit, 'export const edited = true;\n');
    try {
      const started = npm(dir, ['start']);
      expect(started.status).toBe(1);
      expect(started.stderr.trim()).toBe(
        'autohub: the sources changed since the last build, and this install has no TypeScript to build it (production dependencies only): run `npm ci` and `npm run build`, then start again',
      );
    } finally {
      rmSync(edit);
    }
    expect(npm(dir, ['start']).stderr.trim()).toBe(MISSING_ROLE);
  }, 60_000);
});

describe('`npm start` in a checkout (dev dependencies installed)', () => {
  let dir: string;

  beforeAll(() => {
    dir = scratchCopy();
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => {
    if (dir) {
      unlinkSync(join(dir, 'node_modules'));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never starts a build that failed, on this start or the next (tsc emits even when it fails, so the next start found it fresh)', () => {
    const broken = join(dir, 'app', 'broken.ts');
    writeFileSync(broken, "export const broken: number = 'text';\n");
    try {
      for (const attempt of ['first', 'second']) {
        const started = npm(dir, ['start']);
        expect(started.status, `${attempt} start`).toBe(1);
        expect(started.stderr, `${attempt} start`).toContain('autohub: the build failed (errors above); nothing was started');
        expect(started.stderr, `${attempt} start`).not.toContain('AUTOHUB_ROLE');
      }
    } finally {
      rmSync(broken);
    }
  }, 60_000);

  it('rebuilds an edited checkout before it starts: a stale dist/node would run the code from before the edit', () => {
    expect(npm(dir, ['run', 'build']).status).toBe(0);
    const fresh = npm(dir, ['start']);
    expect(fresh.stderr.trim()).toBe(MISSING_ROLE);
    const main = join(dir, 'app', 'main.ts');
    const original = readFileSync(main, 'utf8');
    try {
      writeFileSync(main, `process.stderr.write('autohub: the edited main\\n');\n${original}`);
      const started = npm(dir, ['start']);
      expect(started.stderr.trim().split('\n')).toEqual([
        'autohub: the sources changed since the last build; building',
        'autohub: the edited main',
        ...MISSING_ROLE.split('\n'),
      ]);
    } finally {
      writeFileSync(main, original);
    }
  }, 60_000);
});
