/** Running a set of scenarios against one harness. */
import { spawn, type ChildProcess } from 'node:child_process';
import { startHarness } from './harness.js';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import type { Scenario } from './scenarios.js';

export interface DrillOptions {
  scenarios: readonly Scenario[];
  events: number;
  factor: number;
  rate?: number;
  /** Run both copies in this process on a shared in-process store, even when a redis-server could be started. */
  inProcess?: boolean;
  /** Busy processes beside the system for the whole run, as on a loaded machine (each spins one core). @default 0 */
  noisy?: number;
  onProgress?: (line: string) => void;
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
  const harness = await startHarness({ factor: options.factor, inProcess: options.inProcess });
  try {
    const results: ScenarioResult[] = [];
    for (const scenario of options.scenarios) {
      options.onProgress?.(`${scenario.name}: starting`);
      results.push(await runScenario(harness, scenario, options));
    }
    return { store: harness.storeKind, factor: options.factor, results };
  } finally {
    await harness.close();
    for (const child of noise) child.kill('SIGKILL');
  }
}
