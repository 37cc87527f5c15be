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
 * The table prints a row as each scenario ends, every line within 100
 * columns, a failing row saying what failed; on a terminal a line below it
 * counts the mentions meanwhile. It ends with a legend of its columns and
 * one sentence saying what the run proved and how long it took. The copies'
 * log lines go to a file beside the report (`drill.html`: `drill.log`; at
 * DRILL_LOG_LEVEL, default error) and into each scenario's section of the
 * report, never to the terminal. `--turn FILE` (else AUTOHUB_TURN) runs your
 * bot, not the demo.
 */
import { accessSync, constants, createWriteStream, mkdirSync, statSync, type WriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { runDrill, type DrillResult } from './drill.js';
import { renderHtml } from './report-html.js';
import { failed, legend, problems, summaryLine, tableHeader, tableLayout, tableRow } from './report-table.js';
import { findScenario, SCENARIOS, type Scenario } from './scenarios.js';
import { clip, TERMINAL_WIDTH, wrap } from './wrap.js';
import { UsageError } from '../lib/errors/index.js';
import type { Level } from '../lib/log/index.js';
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

const USAGE = 'usage: npm run drill -- [--scenario NAME] [--events N] [--factor F] [--noisy N]\n       [--turn FILE] [--json] [--report FILE.html]';

/** --help: the usage line, then every scenario with what it stages, within 100 columns. */
export function drillHelp(): string {
  const width = Math.max(...SCENARIOS.map((s) => s.name.length));
  return [
    USAGE,
    '',
    ...wrap(`--turn FILE runs your bot (else AUTOHUB_TURN, else the demo turn). Scenarios (--scenario NAME, repeatable; default: all ${SCENARIOS.length}):`),
    ...SCENARIOS.flatMap((s) => wrap(`  ${s.name.padEnd(width)}  ${s.summary}`, TERMINAL_WIDTH, ' '.repeat(width + 4))),
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

/** Where the copies' log goes: DRILL_COPY_LOG, else beside the report (`drill.html`: `drill.log`), else a file in the system's temporary folder. */
export function copyLogPath(report: string | undefined, env: NodeJS.ProcessEnv = process.env, now = Date.now()): string {
  if (env.DRILL_COPY_LOG) return env.DRILL_COPY_LOG;
  if (report !== undefined) return `${report.replace(/\.html?$/i, '')}.log`;
  return join(tmpdir(), `autohub-drill-${now}.log`);
}

const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];

/** The copies' log level: DRILL_LOG_LEVEL, else info when DRILL_COPY_LOG asks for their log, else error (what went wrong). */
export function copyLogLevel(env: NodeJS.ProcessEnv = process.env): Level {
  const given = env.DRILL_LOG_LEVEL;
  if (given === undefined || given === '') return env.DRILL_COPY_LOG ? 'info' : 'error';
  if (!(LEVELS as readonly string[]).includes(given)) throw new UsageError(`DRILL_LOG_LEVEL ${JSON.stringify(given)}: one of ${LEVELS.join(', ')}`);
  return given as Level;
}

async function main(argv: readonly string[]): Promise<number> {
  let args: DrillArgs;
  let turn: string | undefined;
  let logLevel: Level;
  try {
    args = parseDrillArgs(argv);
    logLevel = copyLogLevel();
    if (args.report !== undefined) prepareReportPath(args.report);
    // Loaded here first, so a bot that cannot load is one line, not 22 copies that fail to start.
    turn = args.turn ?? (process.env.AUTOHUB_TURN || undefined);
    if (turn !== undefined) await loadTurnModule(turn);
  } catch (error) {
    process.stderr.write(`drill: ${(error as Error).message}\n`);
    return 2;
  }
  const startedAt = Date.now();
  const tty = Boolean(process.stderr.isTTY);
  // The table goes to stdout, a row as each scenario ends; with --json stdout is the JSON's, and the rows go to stderr.
  const table = args.json ? process.stderr : process.stdout;
  const colour = Boolean(table.isTTY);
  const say = (text: string) => process.stderr.write(`${wrap(`drill: ${text}`).join('\n')}\n`);
  // On a terminal a counting line is redrawn in place under the rows; it is cleared before each row.
  const progress = (line: string) => {
    if (tty) process.stderr.write(`\r\x1b[2K${clip(line, TERMINAL_WIDTH)}`);
  };
  const unprogress = () => {
    if (tty) process.stderr.write('\r\x1b[2K');
  };
  say(
    `${args.scenarios.length} scenario(s), ${args.events} mention(s) each, time factor ${args.factor} (Slack's retries after ${(60 / args.factor).toFixed(2)} s and ${(300 / args.factor).toFixed(2)} s)`,
  );
  say(`the bot: ${turn ?? 'the demo turn'}`);
  if (args.noisy > 0) say(`${args.noisy} busy process(es) beside the system`);
  const logPath = copyLogPath(args.report);
  let log: WriteStream | undefined;
  let logged = 0;
  const layout = tableLayout(
    args.scenarios.map((s) => s.name),
    args.events,
  );
  table.write(`${colour ? `\x1b[1m${tableHeader(layout)}\x1b[0m` : tableHeader(layout)}\n`);
  let drill: DrillResult;
  try {
    drill = await runDrill({
      scenarios: args.scenarios,
      events: args.events,
      factor: args.factor,
      noisy: args.noisy,
      ...(turn !== undefined ? { turn } : {}),
      logLevel,
      onProgress: progress,
      onResult: (result) => {
        unprogress();
        table.write(`${tableRow(result, layout, colour)}\n`);
      },
      onLog: (scenario, instance, line) => {
        // Opened at the first line: a run whose copies logged nothing leaves no file.
        if (log === undefined) {
          log = createWriteStream(logPath, { flags: process.env.DRILL_COPY_LOG ? 'a' : 'w' });
          // A log that cannot be written costs the log, not the run: said once, under the rows.
          log.once('error', (error) => {
            unprogress();
            say(`the copies' log ${logPath}: not written: ${error.message}`);
            logged = 0;
          });
        }
        if (log.writable) {
          log.write(`${scenario} ${instance} ${line}\n`);
          logged += 1;
        }
      },
    });
  } finally {
    unprogress();
    await new Promise<void>((resolve) => (log?.writable ? log.end(resolve) : resolve()));
  }
  const logNote = logged > 0 ? `${logPath} (${logged} line(s) at ${logLevel} and above)` : undefined;
  if (args.report !== undefined) {
    try {
      await writeFile(
        args.report,
        renderHtml(drill.results, {
          factor: drill.factor,
          store: drill.store,
          generatedAt: new Date().toISOString(),
          logs: drill.logs,
          logLevel,
          ...(logged > 0 ? { logFile: logPath } : {}),
        }),
      );
    } catch (error) {
      // Checked before the run; a folder taken away meanwhile still ends in one line, not a stack trace.
      say(`--report ${args.report}: not written: ${(error as Error).message}`);
      return 2;
    }
  }
  const tookMs = Date.now() - startedAt;
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({ factor: drill.factor, store: drill.store, tookMs, ...(logged > 0 ? { copyLog: logPath } : {}), scenarios: drill.results.map((r) => ({ name: r.name, ...r.score, duplicatesPossible: r.duplicatesPossible ?? null, lostByDesign: r.lostByDesign ?? null, faultErrors: r.faults.filter((f) => f.error).map((f) => `${f.label}: ${f.error}`), ...(r.unmet ? { unmet: r.unmet } : {}), ...(r.notExercised ? { notExercised: r.notExercised } : {}), problems: problems(r), copyLogLines: drill.logs[r.name]?.lines ?? 0, passed: !failed(r) })) })}\n`,
    );
  }
  const store =
    drill.store === 'redis-server' ? 'a private redis-server behind an Upstash REST bridge' : 'in-process, shared by both copies (no redis-server found)';
  table.write(
    `${[...legend(), ...wrap(`claim store: ${store}`), ...wrap(summaryLine(drill.results, args.report, { tookMs, ...(logNote ? { log: logNote } : {}) }))].join('\n')}\n`,
  );
  return drill.results.some((r) => failed(r)) ? 1 : 0;
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  process.exitCode = helpAsked(argv, drillHelp()) ? 0 : await main(argv);
}
