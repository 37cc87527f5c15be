/**
 * Section `drill`: every scenario at 1,000 mentions (25 a second), with the
 * drill's figures. Aim: 0 lost and 0 duplicates wherever the store is up;
 * ack p99 under 1 s everywhere but where a delivery must wait out the edge's
 * hub timeout (1.4 s: hub-slow, fence's frozen hub) or the store's deadline
 * (redis-hang), under Slack's 3 s there.
 */
import { runDrill } from '../drill/drill.js';
import { renderTable } from '../drill/report-table.js';
import { SCENARIOS } from '../drill/scenarios.js';

export async function benchDrill(events = 1000): Promise<void> {
  const started = Date.now();
  const rate = 25;
  const drill = await runDrill({
    scenarios: SCENARIOS,
    events,
    factor: 120,
    rate,
    onProgress: (line) => {
      if (line.endsWith(': starting')) console.error(`bench drill: ${line}`);
    },
  });
  console.log(`\n## drill: every scenario at ${events} mentions, ${rate} a second, time factor ${drill.factor}, store ${drill.store}`);
  console.log(renderTable(drill.results, false));
  // A hub that answers late or is frozen (SIGSTOP) holds each delivery for the edge's hub timeout; a hung store, for the claim's deadline.
  const slowOk = new Set(['hub-slow', 'fence', 'redis-hang']);
  for (const r of drill.results) {
    const bound = slowOk.has(r.name) ? 3000 : 1000;
    const met = r.score.lost === 0 && (r.score.duplicateReplies === 0 || Boolean(r.duplicatesPossible)) && r.score.ackP99Ms < bound;
    console.log(
      `aim ${met ? 'met' : 'MISSED'}: ${r.name} (p99 ${Math.round(r.score.ackP99Ms)} ms against ${bound} ms, lost ${r.score.lost}, dup ${r.score.duplicateReplies})`,
    );
  }
  console.log(`(drill section took ${Math.round((Date.now() - started) / 1000)} s)`);
}
