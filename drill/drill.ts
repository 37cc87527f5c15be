/** Running a set of scenarios against one harness. */
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
  onProgress?: (line: string) => void;
}

export interface DrillResult {
  store: 'redis-server' | 'in-process';
  factor: number;
  results: ScenarioResult[];
}

export async function runDrill(options: DrillOptions): Promise<DrillResult> {
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
  }
}
