/** Running a set of scenarios, each against a harness of its own. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { startHarness } from './harness.js';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import type { Scenario } from './scenarios.js';
import { verdict } from './report-table.js';

export interface DrillOptions {
  scenarios: readonly Scenario[];
  events: number;
  factor: number;
  rate?: number;
  /** Run both copies in this process on a shared in-process store, even when a redis-server could be started. */
  inProcess?: boolean;
  /** Your bot (AUTOHUB_TURN's path) instead of the demo turn, under each scenario's pacing. */
  turn?: string;
  /** Busy processes beside the system for the whole run, as on a loaded machine (each spins one core). @default 0 */
  noisy?: number;
  /** Counts while a scenario runs, for a line redrawn in place (many a second). */
  onProgress?: (line: string) => void;
  /** One line as each scenario starts and one as it ends, with its figures: a log that shows life. */
  onScenario?: (line: string) => void;
}

export interface DrillResult {
  store: 'redis-server' | 'in-process';
  factor: number;
  results: ScenarioResult[];
}

/** A process that keeps one core busy until killed; it also dies with its parent's stdin. */
function spinner(): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "process.stdin.on('end', () => process.exit(0)); process.stdin.resume(); setImmediate(function spin() { const t = Date.now(); while (Date.now() - t < 50); setImmediate(spin); });",
    ],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  return child;
}

export async function runDrill(options: DrillOptions): Promise<DrillResult> {
  const noise = Array.from({ length: options.noisy ?? 0 }, spinner);
  // DRILL_COPY_LOG=FILE: every line the child copies log (at info), each after its instance, for reading a failure afterwards.
  const copyLog = process.env.DRILL_COPY_LOG ? createWriteStream(process.env.DRILL_COPY_LOG, { flags: 'a' }) : undefined;
  const harnessOptions = {
    factor: options.factor,
    inProcess: options.inProcess,
    ...(copyLog ? { onLog: (instance: string, line: string) => void copyLog.write(`${instance} ${line}\n`) } : {}),
    ...(options.turn !== undefined ? { turn: options.turn, paced: true } : {}),
  };
  try {
    const results: ScenarioResult[] = [];
    let store: DrillResult['store'] = 'in-process';
    for (const [i, scenario] of options.scenarios.entries()) {
      const at = `[${i + 1}/${options.scenarios.length}] ${scenario.name}`;
      options.onScenario?.(`${at}: started`);
      options.onProgress?.(`${scenario.name}: starting`);
      // A harness of its own for each scenario, as when it runs alone. One harness for the whole run kept every call of
      // every scenario in its fake Slack, whose scans grew with the run on the event loop that also carries the store's
      // bridge and the edge: late in a whole drill, claims timed out there and scenarios that hold alone failed.
      const harness = await startHarness(harnessOptions);
      let result: ScenarioResult;
      try {
        store = harness.storeKind;
        result = await runScenario(harness, scenario, { ...options, ownBot: options.turn !== undefined });
      } finally {
        await harness.close();
      }
      results.push(result);
      const s = result.score;
      options.onScenario?.(
        `${at}: ${verdict(result)} in ${((result.endedAt - result.startedAt) / 1000).toFixed(1)} s: ${s.answered}/${s.sent} answered, ${s.lost} lost, ${s.duplicateReplies} dup, ${s.halfWritten ?? 0} half-written${
          s.outOfOrder !== undefined ? `, ${s.outOfOrder} out of order, ${s.spinningTasks ?? 0} tasks spinning` : ''
        }`,
      );
    }
    return { store, factor: options.factor, results };
  } finally {
    copyLog?.end();
    for (const child of noise) child.kill('SIGKILL');
  }
}
