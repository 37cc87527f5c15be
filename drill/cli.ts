/**
 * `npm run drill [-- --scenario NAME] [--events N] [--factor F] [--noisy N] [--json] [--report FILE.html]`
 *
 * The whole system on loopback, against a simulated Slack: hub and cloud copy
 * (started as `npm start` starts them), the edge, a claim store, a fake Web
 * API, a cuttable tunnel. No workspace, tunnel or cloud account needed.
 * Exit 1 when any scenario loses a mention, answers one twice (unless it
 * said up front that it may), leaves one half-written or acks a delivery
 * after Slack's 3 s; 2 for a usage error.
 */
import { writeFile } from 'node:fs/promises';
import { runDrill } from './drill.js';
import { renderHtml } from './report-html.js';
import { failed, renderTable } from './report-table.js';
import { findScenario, SCENARIOS, type Scenario } from './scenarios.js';
import { UsageError } from '../lib/errors/index.js';
import { parseCli, wholeNumber } from '../app/cli/args.js';
import { isMain } from '../app/cli/is-main.js';

export interface DrillArgs {
  scenarios: Scenario[];
  events: number;
  factor: number;
  json: boolean;
  report?: string;
  noisy: number;
}

const USAGE = 'usage: npm run drill -- [--scenario NAME] [--events N] [--factor F] [--noisy N] [--json] [--report FILE.html]';

export function parseDrillArgs(argv: readonly string[]): DrillArgs {
  const { values } = parseCli(
    argv,
    {
      scenario: { type: 'string', multiple: true },
      events: { type: 'string' },
      factor: { type: 'string' },
      noisy: { type: 'string' },
      json: { type: 'boolean' },
      report: { type: 'string' },
    },
    USAGE,
  );
  const scenarios = (values.scenario ?? []).map((name) => {
    const scenario = findScenario(name);
    if (!scenario) throw new UsageError(`unknown scenario ${JSON.stringify(name)}; one of ${SCENARIOS.map((s) => s.name).join(', ')}`);
    return scenario;
  });
  return {
    scenarios: scenarios.length > 0 ? scenarios : [...SCENARIOS],
    events: wholeNumber(values.events, '--events', 1, 100_000, 30),
    factor: wholeNumber(values.factor, '--factor', 1, 600, 120),
    noisy: wholeNumber(values.noisy, '--noisy', 0, 16, 0),
    json: values.json === true,
    ...(values.report !== undefined ? { report: values.report } : {}),
  };
}

async function main(argv: readonly string[]): Promise<number> {
  let args: DrillArgs;
  try {
    args = parseDrillArgs(argv);
  } catch (error) {
    process.stderr.write(`drill: ${(error as Error).message}\n`);
    return 2;
  }
  const tty = Boolean(process.stderr.isTTY);
  const progress = (line: string) => {
    if (tty) process.stderr.write(`\r\x1b[2K${line}`);
  };
  process.stderr.write(
    `drill: ${args.scenarios.length} scenario(s), ${args.events} mention(s) each; time factor ${args.factor} ` +
      `(Slack's 1- and 5-minute retries after ${(60 / args.factor).toFixed(2)} s and ${(300 / args.factor).toFixed(2)} s)\n`,
  );
  if (args.noisy > 0) process.stderr.write(`drill: ${args.noisy} busy process(es) beside the system\n`);
  const drill = await runDrill({ scenarios: args.scenarios, events: args.events, factor: args.factor, noisy: args.noisy, onProgress: progress });
  if (tty) process.stderr.write('\r\x1b[2K');
  process.stderr.write(
    `drill: claim store: ${drill.store === 'redis-server' ? 'a private redis-server behind an Upstash REST bridge' : 'in-process, shared by both copies in this process (no redis-server found)'}\n`,
  );

  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({ factor: drill.factor, store: drill.store, scenarios: drill.results.map((r) => ({ name: r.name, ...r.score, duplicatesPossible: r.duplicatesPossible ?? null, faultErrors: r.faults.filter((f) => f.error).map((f) => `${f.label}: ${f.error}`), ...(r.unmet ? { unmet: r.unmet } : {}), passed: !failed(r) })) })}\n`,
    );
  } else {
    process.stdout.write(`${renderTable(drill.results, Boolean(process.stdout.isTTY))}\n`);
  }
  if (args.report) {
    await writeFile(args.report, renderHtml(drill.results, { factor: drill.factor, store: drill.store, generatedAt: new Date().toISOString() }));
    process.stderr.write(`drill: report written to ${args.report}\n`);
  }
  return drill.results.some((r) => failed(r)) ? 1 : 0;
}

if (isMain(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
