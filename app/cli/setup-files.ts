/**
 * What `npm run setup` writes and prints, as pure functions of the deploy's
 * few names: the Worker's public URL, the tunnel's hostname, the Railway URL.
 * Each file is rewritten from the one in the project (only the values named
 * here change), so comments and layout stay as they are.
 */
import type { AppsManifestCreateArguments } from '@slack/web-api';

export interface DeployNames {
  /** The Worker's name (wrangler.toml `name`), e.g. autohub-edge. */
  worker: string;
  /** The edge's public base URL, no path: https://<worker>.<subdomain>.workers.dev, or a custom domain. */
  edgeUrl: string;
  /** The hub's public host through the tunnel, e.g. hub.example.com. */
  hubHost: string;
  /** The cloud copy's base URL on Railway, e.g. https://autohub-production.up.railway.app. */
  cloudUrl: string;
  /** The named tunnel (cloudflared tunnel create NAME). */
  tunnel: string;
  /** The tunnel's credentials file (cloudflared writes ~/.cloudflared/<tunnel id>.json). */
  credentialsFile: string;
  /** The port the hub listens on (PORT). */
  port: number;
}

export interface MachinePaths {
  /** This project's folder, absolute. */
  project: string;
  /**
   * The folders the LaunchAgents look for `node`, `npm` and `cloudflared` in, first to last: the ones asked
   * for (--node, --cloudflared) or looked up on the Mac itself, then where Homebrew and the installers put them.
   */
  binDirs: readonly string[];
  /** Where the LaunchAgents write their logs (~/Library/Logs). */
  logs: string;
}

/**
 * Where a Mac keeps the tools when nothing else says: Homebrew on Apple silicon, Homebrew on Intel and the
 * nodejs.org and cloudflared installers, then the system's. launchd's own PATH is only the last four.
 */
export const MAC_BIN_DIRS = ['/opt/homebrew/bin', '/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'] as const;

/** The LaunchAgents' PATH: the given folders first, then the Mac's usual ones, each once. */
export function agentPath(dirs: readonly string[]): string {
  return [...new Set([...dirs, ...MAC_BIN_DIRS])].join(':');
}

const EVENTS_PATH = '/slack/events';

/**
 * manifest.json with its three URLs (events, interactivity, /autohub) at the edge, and in the Agent messaging
 * experience (agentView); everything else as it was.
 */
export function manifestWith(manifest: string, edgeUrl: string, o: { followUps?: boolean } = {}): string {
  const url = `${edgeUrl}${EVENTS_PATH}`;
  const moved = agentView(manifest.replace(/("(?:request_url|url)":\s*")[^"]*(")/g, (_m, before: string, after: string) => `${before}${url}${after}`));
  return o.followUps ? withFollowUpEvents(moved) : moved;
}

/**
 * The message events a bot with `followUps` needs (a reply with no mention comes only as one of them:
 * https://docs.slack.dev/reference/events/message.channels, message.groups, message.mpim), each under the
 * history scope the manifest already asks for. Added only then: off, the app is not sent every message of
 * every channel it is in. The bot_events line is rewritten sorted; the rest of the file keeps its layout.
 */
export const FOLLOW_UP_EVENTS = ['message.channels', 'message.groups', 'message.mpim'] as const;

export function withFollowUpEvents(manifest: string): string {
  const parsed = JSON.parse(manifest) as { settings?: { event_subscriptions?: { bot_events?: string[] } } };
  const events = parsed.settings?.event_subscriptions?.bot_events;
  if (!Array.isArray(events)) throw new Error('manifest.json: settings.event_subscriptions.bot_events is missing, so the follow-up events cannot be added');
  const all = [...new Set([...events, ...FOLLOW_UP_EVENTS])].sort();
  return manifest.replace(/("bot_events"\s*:\s*)\[[^\]]*\]/, (_m, before: string) => `${before}[${all.map((e) => JSON.stringify(e)).join(', ')}]`);
}

/**
 * A manifest of the Assistant messaging experience moved to the Agent one, as Slack's migration page says
 * (https://docs.slack.dev/ai/migrating-to-agent-messaging): `features.assistant_view` becomes `agent_view`,
 * its `assistant_description` the `agent_description` (web-api 8.2's ManifestAgentView), and the events only
 * the assistant view sends (`assistant_thread_started`, `assistant_thread_context_changed`) give way to
 * `app_context_changed` (a DM's opening is `app_home_opened`, already subscribed). Edited as text, so the
 * file keeps its layout; a manifest with an agent view already is returned as it is.
 */
export function agentView(manifest: string): string {
  if (!/"assistant_view"\s*:/.test(manifest)) return manifest;
  const moved = manifest
    .replace(/"assistant_view"(\s*:)/, '"agent_view"$1')
    .replace(/"assistant_description"(\s*:)/, '"agent_description"$1')
    .replace(/"assistant_thread_context_changed"(\s*,\s*)?/, '')
    .replace(/"assistant_thread_started"/, '"app_context_changed"')
    .replace(/,(\s*\])/g, '$1');
  const features = (JSON.parse(moved) as { features?: { agent_view?: ManifestAgentView } }).features;
  if (typeof features?.agent_view?.agent_description !== 'string') throw new Error('manifest.json: the assistant view could not be moved to agent_view');
  return moved;
}

/** web-api 8.2's ManifestAgentView, which it does not export by name: read from the manifest type it does. */
type ManifestAgentView = NonNullable<NonNullable<AppsManifestCreateArguments['manifest']['features']>['agent_view']>;

/** wrangler.toml with the Worker's name and both copies' base URLs in [vars]. */
export function wranglerWith(toml: string, names: Pick<DeployNames, 'worker' | 'hubHost' | 'cloudUrl'>): string {
  const set = (text: string, key: string, value: string) => {
    const line = new RegExp(`^${key} = ".*"$`, 'm');
    if (!line.test(text)) throw new Error(`wrangler.toml has no ${key} line to set`);
    return text.replace(line, `${key} = ${JSON.stringify(value)}`);
  };
  return set(set(set(toml, 'name', names.worker), 'HUB_URL', `https://${names.hubHost}`), 'CLOUD_URL', names.cloudUrl);
}

/** The tunnel's config, as ~/.cloudflared/config.yml would hold it: the hub's host to the local port, anything else 404. */
export function cloudflaredConfig(names: Pick<DeployNames, 'tunnel' | 'credentialsFile' | 'hubHost' | 'port'>): string {
  return [
    '# The hub behind its named tunnel (written by `npm run setup`). Run it with',
    `#   cloudflared tunnel --config ${'<this file>'} run`,
    '# or let the LaunchAgent deploy/com.autohub.tunnel.plist keep it running.',
    `tunnel: ${names.tunnel}`,
    `credentials-file: ${JSON.stringify(names.credentialsFile)}`,
    'ingress:',
    `  - hostname: ${names.hubHost}`,
    `    service: http://localhost:${names.port}`,
    // cloudflared requires the last rule to match everything.
    '  - service: http_status:404',
    '',
  ].join('\n');
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

type PlistValue = string | boolean | string[] | Record<string, string>;

/** An XML property list (Apple's DTD, as `plutil` writes and checks it) of a flat dictionary. */
export function plist(entries: Record<string, PlistValue>): string {
  const value = (v: PlistValue, indent: string): string[] => {
    if (typeof v === 'boolean') return [`${indent}<${v}/>`];
    if (typeof v === 'string') return [`${indent}<string>${xml(v)}</string>`];
    if (Array.isArray(v)) return [`${indent}<array>`, ...v.map((s) => `${indent}\t<string>${xml(s)}</string>`), `${indent}</array>`];
    return [
      `${indent}<dict>`,
      ...Object.entries(v).flatMap(([k, s]) => [`${indent}\t<key>${xml(k)}</key>`, `${indent}\t<string>${xml(s)}</string>`]),
      `${indent}</dict>`,
    ];
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    ...Object.entries(entries).flatMap(([k, v]) => [`\t<key>${xml(k)}</key>`, ...value(v, '\t')]),
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/**
 * The hub as a LaunchAgent: `npm start` in this folder, started at login and started again whenever it exits.
 * npm and node are found on the agent's PATH (`/usr/bin/env`), not at a path of the machine that ran setup.
 */
export function hubAgent(paths: MachinePaths): string {
  return plist({
    Label: 'com.autohub.hub',
    ProgramArguments: ['/usr/bin/env', 'npm', 'start'],
    WorkingDirectory: paths.project,
    // npm's `#!/usr/bin/env node` needs node on PATH too; launchd's own PATH has no Homebrew or nvm folder.
    EnvironmentVariables: { PATH: agentPath(paths.binDirs) },
    RunAtLoad: true,
    KeepAlive: true,
    StandardOutPath: `${paths.logs}/autohub-hub.log`,
    StandardErrorPath: `${paths.logs}/autohub-hub.log`,
  });
}

/** The tunnel as a LaunchAgent, with the config `npm run setup` wrote; cloudflared found on the agent's PATH. */
export function tunnelAgent(paths: MachinePaths, configFile: string): string {
  return plist({
    Label: 'com.autohub.tunnel',
    ProgramArguments: ['/usr/bin/env', 'cloudflared', 'tunnel', '--config', configFile, 'run'],
    EnvironmentVariables: { PATH: agentPath(paths.binDirs) },
    RunAtLoad: true,
    KeepAlive: true,
    StandardOutPath: `${paths.logs}/autohub-tunnel.log`,
    StandardErrorPath: `${paths.logs}/autohub-tunnel.log`,
  });
}

/** The settings both copies share, read from the shell (after `set -a; . ./.env; set +a`), never printed in clear. */
export const SHARED_SECRETS = [
  'SLACK_SIGNING_SECRET',
  'SLACK_BOT_TOKEN',
  'UPSTASH_REDIS_REST_URL',
  'UPSTASH_REDIS_REST_TOKEN',
  'AUTOHUB_STORE_KEY',
  'AUTOHUB_HEALTH_TOKEN',
];

/** The cloud copy's plain variables (not secrets): written out as they are. */
function railwayPlain(names: Pick<DeployNames, 'hubHost' | 'edgeUrl'>, owner: string | undefined): [string, string][] {
  return [
    ['AUTOHUB_ROLE', 'cloud'],
    ['AUTOHUB_PEER_URL', `https://${names.hubHost}`],
    ['AUTOHUB_EDGE_URL', names.edgeUrl],
    ['RAILPACK_PRUNE_DEPS', 'true'],
    ...(owner ? ([['AUTOHUB_OWNER', owner]] as [string, string][]) : []),
  ];
}

/**
 * The cloud copy's variables as one `railway variables` command: plain values written out, secrets (and
 * the owner, when setup was not told it) from the shell.
 */
export function railwayCommand(names: Pick<DeployNames, 'hubHost' | 'edgeUrl'>, owner: string | undefined): string {
  const fromShell = [...SHARED_SECRETS, ...(owner ? [] : ['AUTOHUB_OWNER'])];
  const sets = [...railwayPlain(names, owner).map(([k, v]) => `--set "${k}=${v}"`), ...fromShell.map((k) => `--set "${k}=$${k}"`)];
  return `railway variables ${sets.join(' ')}`;
}

/** The same variables for the dashboard's Raw Editor (Variables -> Raw Editor): plain ones written out, the rest named. */
export function railwayRawLines(names: Pick<DeployNames, 'hubHost' | 'edgeUrl'>, owner: string | undefined): string[] {
  const fromEnv = [...SHARED_SECRETS, ...(owner ? [] : ['AUTOHUB_OWNER'])];
  return [...railwayPlain(names, owner).map(([k, v]) => `${k}=${v}`), ...fromEnv.map((k) => `${k}=<as in .env>`)];
}

/**
 * The Worker's secrets, each piped from the shell so nothing is typed twice or shown: the signature's and
 * the health page's, and the inbox's store (docs/inbox.md), with the store key when the copies set one.
 */
export function wranglerSecretLines(): string[] {
  const put = (k: string) => `printf %s "$${k}" | npx wrangler secret put ${k}`;
  return [
    ...['SLACK_SIGNING_SECRET', 'AUTOHUB_HEALTH_TOKEN', 'UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN'].map(put),
    `[ -z "$AUTOHUB_STORE_KEY" ] || ${put('AUTOHUB_STORE_KEY')}`,
  ];
}

/** The hub's own settings in .env that point at the others. */
export function hubEnvLines(names: Pick<DeployNames, 'cloudUrl' | 'edgeUrl' | 'port'>): string[] {
  return ['AUTOHUB_ROLE=hub', `PORT=${names.port}`, `AUTOHUB_PEER_URL=${names.cloudUrl}`, `AUTOHUB_EDGE_URL=${names.edgeUrl}`];
}
