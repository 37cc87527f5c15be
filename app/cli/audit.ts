/**
 * `npm run audit -- --record FILE [--no-sweep] [--json] | --sweep [--json]`
 *
 * Judges a refusal log (JSON array or JSON Lines) and, unless --no-sweep,
 * makes a read-only sweep with SLACK_BOT_TOKEN against SLACK_API_URL.
 * Exit 0 clean, 1 when a refusal was mishandled or the sweep was throttled,
 * 2 for a usage error.
 */
import { loadEnv, readUrl } from '../../lib/config/index.js';
import { isCodedError, UsageError } from '../../lib/errors/index.js';
import { countMishandled, readRefusals, replayAll, sweepOnce, type AuditReport } from '../../lib/ratelimit/index.js';
import { helpAsked, parseCli } from './args.js';
import { isMain } from './is-main.js';

interface Args {
  record?: string;
  sweep: boolean;
  json: boolean;
}

const USAGE = 'usage: npm run audit -- --record FILE [--no-sweep] [--json] | --sweep [--json]';

export function parseArgs(argv: readonly string[]): Args {
  // Nothing asked: the usage line, not a sweep of Slack with whatever token `.env` holds.
  if (argv.length === 0) throw new UsageError(USAGE);
  const { values } = parseCli(
    argv,
    { record: { type: 'string' }, 'no-sweep': { type: 'boolean' }, sweep: { type: 'boolean' }, json: { type: 'boolean' } },
    USAGE,
  );
  if (values.sweep && values['no-sweep']) throw new UsageError(`--sweep and --no-sweep cannot go together; ${USAGE}`);
  const args: Args = { sweep: values['no-sweep'] !== true, json: values.json === true };
  if (values.record !== undefined) {
    if (values.record === '' || values.record.startsWith('--')) throw new UsageError('--record needs a file: --record refusals.jsonl');
    args.record = values.record;
  }
  if (!args.record && !args.sweep) throw new UsageError('nothing to do: give --record FILE, or drop --no-sweep to sweep');
  return args;
}

export async function runAudit(argv: readonly string[], env = loadEnv(), out = console): Promise<number> {
  let report: AuditReport;
  let args: Args;
  try {
    args = parseArgs(argv);
    const records = args.record ? replayAll(await readRefusals(args.record)) : [];
    let sweep: AuditReport['sweep'] = [];
    if (args.sweep) {
      const token = env.SLACK_BOT_TOKEN?.trim();
      if (!token) throw new UsageError('set SLACK_BOT_TOKEN, or pass --no-sweep to replay a log offline');
      sweep = await sweepOnce(readUrl(env, 'SLACK_API_URL', 'https://slack.com/api/', { trailingSlash: true }), token);
    }
    report = { records, sweep, mishandled: 0 };
    report.mishandled = countMishandled(report);
  } catch (error) {
    if (error instanceof UsageError || isCodedError(error)) {
      out.error(`audit: ${error.message}`);
      return 2;
    }
    out.error(`audit: the sweep failed: ${(error as Error).message}`);
    return 2;
  }

  if (args.json) {
    out.log(
      JSON.stringify({
        records: report.records.map(({ method, verdict, state, seconds, source }) => ({ method, verdict, state, seconds, source })),
        sweep: report.sweep.map(({ method, status, state, seconds, source }) => ({ method, status, state, seconds, source })),
        mishandled: report.mishandled,
        sweeps: report.sweep.length,
      }),
    );
  } else {
    for (const s of report.sweep) {
      out.log(
        `sweep    ${s.method.padEnd(22)} HTTP ${s.status} ${s.state.padEnd(14)} Retry-After: ${s.source === 'absent' ? 'none' : `${s.seconds}s (${s.source})`}`,
      );
    }
    for (const r of report.records) {
      out.log(`replay   ${r.verdict.padEnd(16)} ${r.detail}`);
      if (r.repair) out.log(`  repair: ${r.repair}`);
    }
    out.log(`${report.sweep.length} sweep call(s), ${report.records.length} replayed refusal(s), ${report.mishandled} mishandled`);
  }
  return report.mishandled > 0 ? 1 : 0;
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  process.exitCode = helpAsked(argv, USAGE) ? 0 : await runAudit(argv);
}
