/**
 * `npm run drill [-- --scenario NAME] [--events N] [--factor F] [--noisy N] [--turn FILE] [--json] [--report FILE.html]`
 *
 * The whole system on loopback, against a simulated Slack: hub and cloud copy
 * (started as `npm start` starts them), the edge, a claim store, a fake Web
 * API, a cuttable tunnel. No workspace, tunnel or cloud account needed.
 * Exit 1 when any scenario loses a mention, answers one twice (unless it
 * said up front that it may), leaves one half-written or acks a delivery
 * after Slack's 3 s; 2 for a usage error, or a report that cannot be written
 * (checked before the run: a missing folder is made, as `mkdir -p` makes it).
 * A line per scenario as it starts and as it ends goes to stderr, so a log
 * shows life; on a terminal a line below it counts the mentions meanwhile.
 * The table ends with a legend of its columns and one line saying what the
 * run proved. `--turn FILE` (else AUTOHUB_TURN) runs your bot, not the demo.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { runDrill } from './drill.js';
import { renderHtml } from './report-html.js';
import { failed, legend, renderTable, summaryLine } from './report-table.js';
import { findScenario, SCENARIOS, type Scenario } from './scenarios.js';
import { UsageError } from '../lib/errors/index.js';
import { helpAsked, parseCli, wholeNumber } from '../app/cli/args.js';
import { isMain } from '../app/cli/is-main.js';
import { loadTurnModule } from '../app/turn-module.js';

export interface DrillArgs {
  scenarios: Scenario[];
  events: number;
  factor: number;
  json: boolean;
  report?: string;
  noisy: number;
  /** Your bot's module; unset: AUTOHUB_TURN, else the demo turn. */
  turn?: string;
}

const USAGE = 'usage: npm run drill -- [--scenario NAME] [--events N] [--factor F] [--noisy N] [--turn FILE] [--json] [--report FILE.html]';

/** --help: the usage line, then every scenario with what it stages. */
export function drillHelp(): string {
  const width = Math.max(...SCENARIOS.map((s) => s.name.length));
  return [
    USAGE,
    '',
    `--turn FILE runs your bot (else AUTOHUB_TURN, else the demo turn). Scenarios (--scenario NAME, repeatable; default: all ${SCENARIOS.length}):`,
    ...SCENARIOS.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`),
  ].join('\n');
}

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
      turn: { type: 'string' },
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
    ...(values.turn !== undefined ? { turn: values.turn } : {}),
  };
}

/**
 * Makes sure `path` can take the report before the drill spends minutes on a
 * run: makes its folder (and any folder above it) when missing, and throws a
 * one-line UsageError when the path is a folder, or its folder cannot be made
 * or written to.
 */
export function prepareReportPath(path: string, flag = '--report'): void {
  const target = resolve(path);
  const problem = (why: string) => new UsageError(`${flag} ${path}: ${why}`);
  if (path === '' || path.endsWith('/')) throw problem('give a file name, e.g. --report drill.html');
  const existing = statSync(target, { throwIfNoEntry: false });
  if (existing?.isDirectory()) throw problem('is a folder; give a file name, e.g. --report drill.html');
  const folder = dirname(target);
  try {
    mkdirSync(folder, { recursive: true });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOTDIR' || code === 'EEXIST'
        ? 'a part of its folder is a file, not a folder'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? `its folder ${folder} cannot be written to`
          : `its folder ${folder} cannot be made (${code ?? (error as Error).message})`;
    throw problem(why);
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let args: DrillArgs;
  let turn: string | undefined;
  try {
    args = parseDrillArgs(argv);
    if (args.report !== undefined) prepareReportPath(args.report);
    // Loaded here first, so a bot that cannot load is one line, not 22 copies that fail to start.
    turn = args.turn ?? (process.env.AUTOHUB_TURN || undefined);
    if (turn !== undefined) await loadTurnModule(turn);
  } catch (error) {
    process.stderr.write(`drill: ${(error as Error).message}\n`);
    return 2;
  }
  const tty = Boolean(process.stderr.isTTY);
  // On a terminal the counting line is redrawn in place, under the lines that stay.
  const progress = (line: string) => {
    if (tty) process.stderr.write(`\r\x1b[2K${line}`);
  };
  const step = (line: string) => process.stderr.write(`${tty ? '\r\x1b[2K' : ''}drill: ${line}\n`);
  process.stderr.write(
    `drill: ${args.scenarios.length} scenario(s), ${args.events} mention(s) each; time factor ${args.factor} ` +
      `(Slack's 1- and 5-minute retries after ${(60 / args.factor).toFixed(2)} s and ${(300 / args.factor).toFixed(2)} s)\n`,
  );
  process.stderr.write(`drill: the bot: ${turn ?? 'the demo turn'}\n`);
  if (args.noisy > 0) process.stderr.write(`drill: ${args.noisy} busy process(es) beside the system\n`);
  const drill = await runDrill({
    scenarios: args.scenarios,
    events: args.events,
    factor: args.factor,
    noisy: args.noisy,
    ...(turn !== undefined ? { turn } : {}),
    onProgress: progress,
    onScenario: step,
  });
  if (tty) process.stderr.write('\r\x1b[2K');
  process.stderr.write(
    `drill: claim store: ${drill.store === 'redis-server' ? 'a private redis-server behind an Upstash REST bridge' : 'in-process, shared by both copies in this process (no redis-server found)'}\n`,
  );

  if (args.report !== undefined) {
    try {
      await writeFile(args.report, renderHtml(drill.results, { factor: drill.factor, store: drill.store, generatedAt: new Date().toISOString() }));
    } catch (error) {
      // Checked before the run; a folder taken away meanwhile still ends in one line, not a stack trace.
      process.stderr.write(`drill: --report ${args.report}: not written: ${(error as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`drill: report written to ${args.report}\n`);
  }
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({ factor: drill.factor, store: drill.store, scenarios: drill.results.map((r) => ({ name: r.name, ...r.score, duplicatesPossible: r.duplicatesPossible ?? null, lostByDesign: r.lostByDesign ?? null, faultErrors: r.faults.filter((f) => f.error).map((f) => `${f.label}: ${f.error}`), ...(r.unmet ? { unmet: r.unmet } : {}), ...(r.notExercised ? { notExercised: r.notExercised } : {}), passed: !failed(r) })) })}\n`,
    );
  } else {
    process.stdout.write(`${renderTable(drill.results, Boolean(process.stdout.isTTY))}\n${legend()}\n${summaryLine(drill.results, args.report)}\n`);
  }
  return drill.results.some((r) => failed(r)) ? 1 : 0;
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  process.exitCode = helpAsked(argv, drillHelp()) ? 0 : await main(argv);
}
