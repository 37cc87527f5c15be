/**
 * `npm run verify -- --edge URL [--hub URL] [--cloud URL]`
 *
 * After a deploy: signed synthetic deliveries (claimed like any other, no
 * listener runs, nothing is posted) through the edge and straight to each
 * copy, the retry path included. Needs only SLACK_SIGNING_SECRET.
 * Exit 0 when all holds, 1 with one line per failure, 2 for a usage error.
 */
import { loadEnv } from '../../lib/config/index.js';
import { UsageError } from '../../lib/errors/index.js';
import { verifyFailures, type VerifyAnswers } from '../../lib/verify/checks.js';
import { readHealth, sendProbe, type ProbeAnswer } from '../../lib/verify/probe.js';
import { helpAsked, parseCli } from './args.js';
import { isMain } from './is-main.js';

interface VerifyArgs {
  edge: string;
  hub?: string;
  cloud?: string;
  secret: string;
  /** AUTOHUB_HEALTH_TOKEN: without it each health answer says only its status. */
  healthToken?: string;
}

function baseUrl(flag: string, value: string | undefined): string {
  if (!value || value.startsWith('--')) throw new UsageError(`${flag} needs a URL, e.g. ${flag} https://example.com`);
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    return url.origin + url.pathname.replace(/\/+$/, '').replace(/\/slack\/events$/, '');
  } catch {
    throw new UsageError(`${flag} is not an http(s) URL: ${JSON.stringify(value)}`);
  }
}

const USAGE = 'usage: npm run verify -- --edge URL [--hub URL] [--cloud URL]';

export function parseVerifyArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): VerifyArgs {
  const { values } = parseCli(argv, { edge: { type: 'string' }, hub: { type: 'string' }, cloud: { type: 'string' } }, USAGE);
  if (values.edge === undefined) throw new UsageError('--edge URL is required: the Worker (or `npm run edge`) Slack sends to');
  const secret = env.SLACK_SIGNING_SECRET?.trim();
  if (!secret) throw new UsageError("set SLACK_SIGNING_SECRET (the app's signing secret); no bot token is needed");
  const healthToken = env.AUTOHUB_HEALTH_TOKEN?.trim();
  return {
    edge: baseUrl('--edge', values.edge),
    ...(values.hub !== undefined ? { hub: baseUrl('--hub', values.hub) } : {}),
    ...(values.cloud !== undefined ? { cloud: baseUrl('--cloud', values.cloud) } : {}),
    secret,
    ...(healthToken ? { healthToken } : {}),
  };
}

function line(p: ProbeAnswer): string {
  const served = p.role ? `${p.role} (${p.instance})` : 'nobody';
  return `  ${p.what.padEnd(46)} ${String(p.status).padEnd(11)} route ${String(p.route ?? '-').padEnd(5)} served by ${served.padEnd(22)} claim ${String(p.claim ?? '-').padEnd(9)} ${p.ms.toFixed(0)} ms`;
}

export async function runVerify(argv: readonly string[], env = loadEnv(), out = console): Promise<number> {
  let args: VerifyArgs;
  try {
    args = parseVerifyArgs(argv, env);
  } catch (error) {
    out.error(`verify: ${(error as Error).message}`);
    return 2;
  }
  const run = `verify-${Date.now().toString(36)}`;
  const o = { secret: args.secret };
  const answers: VerifyAnswers = {
    edgeHealth: await readHealth(args.edge, args.healthToken),
    ...(args.hub ? { hubHealth: await readHealth(args.hub, args.healthToken) } : {}),
    ...(args.cloud ? { cloudHealth: await readHealth(args.cloud, args.healthToken) } : {}),
    edgeFirst: await sendProbe(args.edge, 'first delivery through the edge', { ...o, eventId: `${run}-edge` }),
    edgeRetry: await sendProbe(args.edge, 'its retry (X-Slack-Retry-Num: 1) through the edge', { ...o, eventId: `${run}-edge`, retryNum: 1 }),
  };
  if (args.hub) {
    answers.hubFirst = await sendProbe(args.hub, 'first delivery straight to the hub', { ...o, eventId: `${run}-hub` });
    if (args.cloud) {
      answers.cloudRetryOfHub = await sendProbe(args.cloud, "retry of the hub's delivery, to the cloud copy", { ...o, eventId: `${run}-hub`, retryNum: 1 });
    }
  }
  if (args.cloud) answers.cloudFirst = await sendProbe(args.cloud, 'first delivery straight to the cloud copy', { ...o, eventId: `${run}-cloud` });

  out.log('health');
  for (const [name, h] of [
    ['edge', answers.edgeHealth],
    ['hub', answers.hubHealth],
    ['cloud', answers.cloudHealth],
  ] as const) {
    if (!h) continue;
    const store = h.body?.store as { kind?: string; ok?: boolean | null } | undefined;
    out.log(
      `  ${name.padEnd(6)} ${String(h.status).padEnd(11)} ${String(h.body?.status ?? '-').padEnd(9)} store ${store ? `${store.kind} ${store.ok ? 'ok' : store.ok === false ? 'DOWN' : 'unchecked'}` : '-'}  ${h.ms.toFixed(0)} ms`,
    );
  }
  out.log('deliveries');
  for (const p of [answers.edgeFirst, answers.edgeRetry, answers.hubFirst, answers.cloudRetryOfHub, answers.cloudFirst]) if (p) out.log(line(p));
  const failures = verifyFailures(answers);
  for (const f of failures) out.error(`FAIL ${f}`);
  out.log(failures.length === 0 ? 'verify: all holds' : `verify: ${failures.length} failure(s)`);
  return failures.length === 0 ? 0 : 1;
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  process.exitCode = helpAsked(argv, USAGE) ? 0 : await runVerify(argv);
}
