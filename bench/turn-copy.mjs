/**
 * The copy under the turn bench, as deployed: plain node on the build in
 * dist/node (`npm run build`), no tsx. Settings come as one JSON argument.
 * Over IPC: `usage` -> its own CPU and memory, and `busy` (turns not yet done).
 */
import { createAutohub } from '../dist/node/app/create-app.js';
import { parseAppConfig } from '../dist/node/lib/config/index.js';
import { silentLogger } from '../dist/node/lib/log/index.js';

const env = JSON.parse(process.argv[2] ?? '{}');
const autohub = createAutohub({ config: parseAppConfig(env), log: silentLogger });
await autohub.start();
process.on('message', (message) => {
  if (message === 'gc') globalThis.gc?.();
  // Polled while a batch drains: its answer costs the server as little as can be.
  if (message === 'busy') process.send?.({ busy: autohub.runner.inFlight + autohub.runner.queued });
  if (message === 'usage') {
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    process.send?.({
      cpuUs: cpu.user + cpu.system,
      heapKb: memory.heapUsed / 1024,
      rssKb: memory.rss / 1024,
      busy: autohub.runner.inFlight + autohub.runner.queued,
    });
  }
});
process.on('SIGTERM', () => void autohub.stop().then(() => process.exit(0)));
process.send?.({ ready: autohub.receiver.port });
