/**
 * `npm run audit -- --record FILE [--no-sweep] [--json]`
 *
 * Judges a refusal log (JSON array or JSON Lines) and, unless --no-sweep,
 * makes a read-only sweep with SLACK_BOT_TOKEN against SLACK_API_URL.
 * Exit 0 clean, 1 when a refusal was mishandled or the sweep was throttled,
 * 2 for a usage error.
 */
import { loadEnv, readUrl } from '../../lib/config/index.js';
import { isCodedError, UsageError } from '../../lib/errors/index.js';
import { countMishandled, replayAll, sweepOnce, type AuditReport } from '../../lib/ratelimit/audit.js';
import { readRefusals } from '../../lib/ratelimit/refusal-file.js';
import { isMain } from './is-main.js';

interface Args {
  record?: string;
  sweep: boolean;
  json: boolean;
}

export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { sweep: true, json: false };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--record') {
      const file = argv[++i];
      if (!file || file.startsWith('--')) throw new UsageError('--record needs a file: --record refusals.jsonl');
      args.record = file;
    } else if (word === '--no-sweep') args.sweep = false;
    else if (word === '--json') args.json = true;
    else throw new UsageError(`unknown argument ${JSON.stringify(word)}; usage: npm run audit -- --record FILE [--no-sweep] [--json]`);
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
      out.log(`sweep    ${s.method.padEnd(22)} HTTP ${s.status} ${s.state.padEnd(14)} Retry-After: ${s.source === 'absent' ? 'none' : `${s.seconds}s (${s.source})`}`);
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
  process.exitCode = await runAudit(process.argv.slice(2));
}
