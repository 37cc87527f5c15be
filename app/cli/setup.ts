/**
 * `npm run setup -- [--worker NAME] (--edge-url URL | --workers-dev SUBDOMAIN) --hub-host HOST --cloud-url URL
 *   [--tunnel NAME] [--credentials FILE] [--owner U...] [--port N] [--cloudflared PATH] [--dir DIR]`
 *
 * Writes the deploy's files from three names (what it is not given it asks
 * for, on a terminal): manifest.json's URLs, wrangler.toml's name and vars, a
 * cloudflared config and two LaunchAgents (the hub and its tunnel, kept
 * running) in deploy/; then prints the Railway variables as one command and
 * the Worker's secrets. Exit 0 written, 2 for a usage error.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { loadEnv } from '../../lib/config/load-env.js';
import type { Env } from '../../lib/env/index.js';
import { ConfigError, UsageError } from '../../lib/errors/index.js';
import { loadTurnModule, projectRoot } from '../turn-module.js';
import { helpAsked, parseCli, wholeNumber } from './args.js';
import { isMain } from './is-main.js';
import {
  cloudflaredConfig,
  hubAgent,
  hubEnvLines,
  FOLLOW_UP_EVENTS,
  manifestWith,
  railwayCommand,
  railwayRawLines,
  tunnelAgent,
  wranglerSecretLines,
  wranglerWith,
  type DeployNames,
} from './setup-files.js';

const USAGE =
  'usage: npm run setup -- [--worker NAME] (--edge-url URL | --workers-dev SUBDOMAIN) --hub-host HOST --cloud-url URL [--tunnel NAME] [--credentials FILE] [--owner U...] [--port N] [--node PATH] [--cloudflared PATH] [--dir DIR]';

const OPTIONS = {
  worker: { type: 'string' },
  'edge-url': { type: 'string' },
  'workers-dev': { type: 'string' },
  'hub-host': { type: 'string' },
  'cloud-url': { type: 'string' },
  tunnel: { type: 'string' },
  credentials: { type: 'string' },
  owner: { type: 'string' },
  port: { type: 'string' },
  node: { type: 'string' },
  cloudflared: { type: 'string' },
  dir: { type: 'string' },
} as const;

type Values = Partial<Record<keyof typeof OPTIONS, string>>;

/** What a missing value is asked as, on a terminal (the owner too, though optional: an empty answer leaves it unset). */
const QUESTIONS: Partial<Record<keyof typeof OPTIONS, string>> = {
  'workers-dev': "Your workers.dev subdomain (Cloudflare dashboard -> Workers & Pages, 'Your subdomain'), or the Worker's full URL: ",
  'hub-host': "The hub's public hostname through the tunnel (e.g. hub.example.com): ",
  'cloud-url': "The cloud copy's Railway URL (e.g. https://autohub-production.up.railway.app): ",
  owner: 'Your Slack member id, who hears of trouble (your profile -> the three dots -> Copy member ID; Enter to skip): ',
};

function httpsBase(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value.includes('://') ? value : `https://${value}`);
  } catch {
    throw new UsageError(`--${flag} takes an https:// URL, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:') throw new UsageError(`--${flag} takes an https:// URL (Slack and the edge call it over TLS), not ${JSON.stringify(value)}`);
  return `${url.origin}${url.pathname.replace(/\/slack\/events$/, '').replace(/\/+$/, '')}`;
}

function hostname(flag: string, value: string): string {
  const host = value.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i.test(host))
    throw new UsageError(`--${flag} takes a hostname like hub.example.com, not ${JSON.stringify(value)}`);
  return host.toLowerCase();
}

/** The tunnel's credentials: the one file `cloudflared tunnel create` left in ~/.cloudflared, else where it will be. */
function defaultCredentials(home: string): string {
  const dir = join(home, '.cloudflared');
  const found = existsSync(dir) ? readdirSync(dir).filter((f) => /^[0-9a-f-]{36}\.json$/.test(f)) : [];
  return join(dir, found.length === 1 ? found[0]! : '<TUNNEL-ID>.json');
}

/** The folder on this shell's PATH that holds `binary`, if any. */
function dirOnPath(binary: string): string | undefined {
  return (process.env.PATH ?? '').split(delimiter).find((dir) => dir && existsSync(join(dir, binary)));
}

export interface SetupPlan {
  names: DeployNames;
  owner: string | undefined;
  project: string;
}

/** The flags (and answers) made into the deploy's names; a UsageError naming each bad one. */
export function planSetup(values: Values, o: { project: string; toml: string; home: string }): SetupPlan {
  const missing: string[] = (['hub-host', 'cloud-url'] as const).filter((k) => !values[k]);
  if (!values['edge-url'] && !values['workers-dev']) missing.unshift('workers-dev');
  if (missing.length > 0)
    throw new UsageError(`missing ${missing.map((m) => (m === 'workers-dev' ? '--edge-url or --workers-dev' : `--${m}`)).join(', ')}; ${USAGE}`);
  const worker = values.worker ?? /^name = "(.*)"$/m.exec(o.toml)?.[1] ?? 'autohub-edge';
  if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(worker))
    throw new UsageError(`--worker takes a Worker name (lowercase letters, digits, dashes), not ${JSON.stringify(worker)}`);
  const devOrUrl = values['edge-url'] ?? values['workers-dev']!;
  // A bare subdomain, or a pasted URL when asked for the subdomain.
  const edgeUrl =
    values['edge-url'] || devOrUrl.includes('.') ? httpsBase('edge-url', devOrUrl) : `https://${worker}.${hostname('workers-dev', `${devOrUrl}.workers.dev`)}`;
  const owner = values.owner?.trim();
  if (owner !== undefined && !/^[UW][A-Z0-9]{2,}$/.test(owner)) throw new UsageError(`--owner takes your Slack member id (U...), not ${JSON.stringify(owner)}`);
  return {
    project: o.project,
    owner,
    names: {
      worker,
      edgeUrl,
      hubHost: hostname('hub-host', values['hub-host']!),
      cloudUrl: httpsBase('cloud-url', values['cloud-url']!),
      tunnel: values.tunnel ?? 'autohub-hub',
      credentialsFile: values.credentials ? resolve(values.credentials) : defaultCredentials(o.home),
      port: wholeNumber(values.port, '--port', 1, 65535, 3000),
    },
  };
}

async function ask(values: Values): Promise<Values> {
  const needed = (Object.keys(QUESTIONS) as (keyof typeof QUESTIONS)[]).filter((k) => (k === 'workers-dev' ? !values['edge-url'] && !values[k] : !values[k]));
  // On a terminal, what is optional is asked too (the owner: before, never asked nor printed); an empty answer skips it.
  if (needed.length === 0 || !process.stdin.isTTY) return values;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answered = { ...values };
    for (const k of needed) answered[k] = (await rl.question(QUESTIONS[k]!)).trim() || undefined;
    return answered;
  } finally {
    rl.close();
  }
}

export interface Out {
  log(line: string): void;
  error(line: string): void;
}

/**
 * Where the LaunchAgents look for node, npm and cloudflared: the binaries given (--node, --cloudflared),
 * else, when setup runs on the Mac itself, where this shell finds them; on another machine its own paths
 * mean nothing on the Mac, so only the Mac's usual folders (MAC_BIN_DIRS) are searched.
 */
export function binDirsFor(values: { node?: string | undefined; cloudflared?: string | undefined }, platform: NodeJS.Platform): string[] {
  const onMac = platform === 'darwin';
  const node = values.node ? dirname(resolve(values.node)) : onMac ? dirname(process.execPath) : undefined;
  const cloudflared = values.cloudflared ? dirname(resolve(values.cloudflared)) : onMac ? dirOnPath('cloudflared') : undefined;
  return [node, cloudflared].filter((d): d is string => d !== undefined);
}

/**
 * Whether the bot (AUTOHUB_TURN, from the environment or the project's .env) asks for follow-ups: then
 * manifest.json subscribes to channels' messages. The module is loaded as a copy loads it; one that
 * cannot be stops setup with the copy's own line.
 */
async function wantsFollowUps(project: string, env: Env): Promise<boolean> {
  const turn = loadEnv(env, join(project, '.env')).AUTOHUB_TURN?.trim();
  if (!turn) return false;
  return (await loadTurnModule(turn, { root: project })).followUps !== undefined;
}

export async function runSetup(
  argv: readonly string[],
  out: Out = console,
  home: string = homedir(),
  platform: NodeJS.Platform = process.platform,
  env: Env = process.env,
): Promise<number> {
  let plan: SetupPlan;
  try {
    const { values } = parseCli(argv, OPTIONS, USAGE);
    const project = resolve(values.dir ?? projectRoot());
    const tomlPath = join(project, 'wrangler.toml');
    if (!existsSync(tomlPath) || !existsSync(join(project, 'manifest.json')))
      throw new UsageError(`${project} holds no wrangler.toml and manifest.json: run it in the project (or --dir)`);
    plan = planSetup(await ask(values), { project, toml: readFileSync(tomlPath, 'utf8'), home });
    const { names } = plan;
    const deploy = join(project, 'deploy');
    mkdirSync(deploy, { recursive: true });
    const paths = { project, binDirs: binDirsFor(values, platform), logs: join(home, 'Library', 'Logs') };
    const tunnelConfig = join(deploy, 'cloudflared.yml');
    const followUps = await wantsFollowUps(project, env);
    const files: [string, string][] = [
      [join(project, 'manifest.json'), manifestWith(readFileSync(join(project, 'manifest.json'), 'utf8'), names.edgeUrl, { followUps })],
      [tomlPath, wranglerWith(readFileSync(tomlPath, 'utf8'), names)],
      [tunnelConfig, cloudflaredConfig(names)],
      [join(deploy, 'com.autohub.hub.plist'), hubAgent(paths)],
      [join(deploy, 'com.autohub.tunnel.plist'), tunnelAgent(paths, tunnelConfig)],
    ];
    for (const [path, text] of files) writeFileSync(path, text);
    const { owner } = plan;
    out.log(
      [
        'setup: wrote',
        ...files.map(([path]) => `  ${path}`),
        '',
        `The edge: ${names.edgeUrl}/slack/events (in manifest.json). Next, in this order:`,
        ...(followUps
          ? [`Your bot's followUps: manifest.json subscribes to ${FOLLOW_UP_EVENTS.join(', ')} (every message of a channel the bot is in reaches it).`]
          : []),
        '',
        '1. The Worker, before Slack checks its URL (until its secret is set it answers 503 "not configured", and its log names the secret):',
        '     npx wrangler login   # once',
        '     npx wrangler deploy',
        `2. The Slack app: api.slack.com/apps -> Create New App -> From an app manifest -> paste manifest.json. Install it; put its`,
        '   Signing Secret and Bot User OAuth Token in .env, with the Upstash REST URL and token and the two secrets',
        '   (`openssl rand -hex 32` for AUTOHUB_STORE_KEY, `openssl rand -hex 16` for AUTOHUB_HEALTH_TOKEN). In .env also:',
        ...hubEnvLines(names).map((l) => `     ${l}`),
        owner
          ? `     AUTOHUB_OWNER=${owner}`
          : '     AUTOHUB_OWNER=U...   # your Slack member id (your profile -> the three dots -> Copy member ID): who hears of trouble',
        "3. The Worker's secrets (the edge's inbox needs the store's too: docs/inbox.md), from .env, nothing shown:",
        '     set -a; . ./.env; set +a',
        ...wranglerSecretLines().map((l) => `     ${l}`),
        "   The cloud copy's variables, in the Railway project made from this repository, either with the railway CLI",
        '   (`npm install -g @railway/cli`, then `railway login` and `railway link` here), from the same shell:',
        `     ${railwayCommand(names, owner)}`,
        "   or in Railway's dashboard: the service -> Variables -> Raw Editor, these lines:",
        ...railwayRawLines(names, owner).map((l) => `     ${l}`),
        '4. The tunnel and the hub, kept running by launchd:',
        `     cloudflared tunnel create ${names.tunnel}   # once; then rerun setup if credentials-file in deploy/cloudflared.yml says <TUNNEL-ID>`,
        `     cloudflared tunnel route dns ${names.tunnel} ${names.hubHost}`,
        '     npm run build',
        '     cp deploy/com.autohub.hub.plist deploy/com.autohub.tunnel.plist ~/Library/LaunchAgents/',
        '     launchctl load ~/Library/LaunchAgents/com.autohub.hub.plist ~/Library/LaunchAgents/com.autohub.tunnel.plist',
        "5. Slack's Request URL: Event Subscriptions, Interactivity, Slash Commands -> Retry (or save again).",
        `6. npm run verify -- --edge ${names.edgeUrl} --hub https://${names.hubHost} --cloud ${names.cloudUrl}`,
      ].join('\n'),
    );
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      out.error(`setup: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  process.exitCode = helpAsked(argv, USAGE) ? 0 : await runSetup(argv);
}
