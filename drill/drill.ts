/** Running a set of scenarios, each against a harness of its own. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Level } from '../lib/log/index.js';
import { CopyLogBook, type CopyLog } from './copy-log.js';
import { startHarness } from './harness.js';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import type { Scenario } from './scenarios.js';
import type { ScenarioScore } from './score.js';

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
  /** Counts while a scenario runs, for a line redrawn in place (many a second); the scenario's name as it starts. */
  onProgress?: (line: string) => void;
  /** Each scenario's result as it ends (its row of the table), and its place in the run (0 first). */
  onResult?: (result: ScenarioResult, index: number) => void;
  /**
   * Each line the copies log, with the scenario and the copy (`drill-hub`, `drill-cloud`; `drill` for the drill's
   * own notes): never the terminal's. They are also counted into `DrillResult.logs`.
   */
  onLog?: (scenario: string, instance: string, line: string) => void;
  /** The level the copies log at. @default 'error' */
  logLevel?: Level;
}

export interface DrillResult {
  store: 'redis-server' | 'in-process';
  factor: number;
  results: ScenarioResult[];
  /** What the copies logged, by scenario name. */
  logs: Record<string, CopyLog>;
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

/** The result of a scenario that stopped before its end: every count zero, and why it stopped as its unmet expectation. */
export function brokenOff(scenario: Pick<Scenario, 'name' | 'summary'>, startedAt: number, error: unknown, now = Date.now()): ScenarioResult {
  const score: ScenarioScore = {
    sent: 0,
    answered: 0,
    lost: 0,
    duplicateReplies: 0,
    retries: 0,
    servedByHub: 0,
    servedByCloud: 0,
    takenOver: 0,
    ackP50Ms: 0,
    ackP99Ms: 0,
    deadlineMisses: 0,
    lostMentions: [],
    doubledMentions: [],
    late: 0,
    maxWaitMs: 0,
    caughtUp: 0,
  };
  const why = error instanceof Error ? error.message : String(error);
  return { name: scenario.name, summary: scenario.summary, startedAt, endedAt: now, score, attempts: [], replies: [], faults: [], unmet: [`stopped: ${why}`] };
}

/**
 * A scenario's copies started, tried a second time when the first start fails: a copy's start on a loaded
 * machine (CI's two cores, each busy) is the machine's fault, not the scenario's, and a stopped harness leaves
 * nothing running. A second failure stops the scenario with why.
 */
export async function startOnce<T>(start: () => Promise<T>, retrying: (error: unknown) => void): Promise<T> {
  try {
    return await start();
  } catch (error) {
    retrying(error);
    return start();
  }
}

export async function runDrill(options: DrillOptions): Promise<DrillResult> {
  const noise = Array.from({ length: options.noisy ?? 0 }, spinner);
  const logs: Record<string, CopyLog> = {};
  try {
    const results: ScenarioResult[] = [];
    let store: DrillResult['store'] = 'in-process';
    for (const [i, scenario] of options.scenarios.entries()) {
      options.onProgress?.(`[${i + 1}/${options.scenarios.length}] ${scenario.name}: starting`);
      // The copies' lines are taken, always: a copy's stderr on the drill's terminal came between its rows.
      const book = new CopyLogBook();
      const onLog = (instance: string, line: string) => {
        book.take(instance, line);
        options.onLog?.(scenario.name, instance, line);
      };
      // A harness of its own for each scenario, as when it runs alone. One harness for the whole run kept every call of
      // every scenario in its fake Slack, whose scans grew with the run on the event loop that also carries the store's
      // bridge and the edge: late in a whole drill, claims timed out there and scenarios that hold alone failed.
      let result: ScenarioResult;
      const startedAt = Date.now();
      try {
        const harness = await startOnce(
          () =>
            startHarness({
              factor: options.factor,
              inProcess: options.inProcess,
              onLog,
              logLevel: options.logLevel ?? 'error',
              ...(options.turn !== undefined ? { turn: options.turn, paced: true } : {}),
            }),
          (error) => onLog('drill', `the copies did not start (${(error as Error).message}): starting them again`),
        );
        try {
          store = harness.storeKind;
          result = await runScenario(harness, scenario, { ...options, ownBot: options.turn !== undefined });
        } finally {
          await harness.close();
        }
      } catch (error) {
        // A scenario that could not run to its end (a copy that never became healthy on a loaded machine) fails
        // with why, and the run goes on: before, the whole drill ended in a stack trace, its copies left running.
        result = brokenOff(scenario, startedAt, error);
      }
      results.push(result);
      logs[scenario.name] = book.summary();
      options.onResult?.(result, i);
    }
    return { store, factor: options.factor, results, logs };
  } finally {
    for (const child of noise) child.kill('SIGKILL');
  }
}
