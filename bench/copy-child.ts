/**
 * One copy for a bench, in its own process (as `npm start` runs it), that
 * reports its own CPU and memory when asked over IPC: `usage` -> {cpuUs, rssKb}.
 * Settings come as one JSON argument, never from a developer's .env.
 */
import { createAutohub } from '../app/create-app.js';
import { parseAppConfig } from '../lib/config/index.js';
import { silentLogger } from '../lib/log/index.js';
import { loadBot } from '../app/turn-module.js';

const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const config = parseAppConfig(env);
// AUTOHUB_TURN's module when set (the schedule bench's bot), else the demo turn, as `npm start` loads it.
const autohub = createAutohub({ config, log: silentLogger, turn: await loadBot(config) });
await autohub.start();
process.on('message', (message) => {
  if (message === 'gc') globalThis.gc?.();
  if (message === 'usage') {
    const usage = process.resourceUsage();
    const memory = process.memoryUsage();
    process.send?.({
      cpuUs: usage.userCPUTime + usage.systemCPUTime,
      rssKb: usage.maxRSS,
      looks: autohub.reaper.looks,
      rssNowKb: Math.round(memory.rss / 1024),
      heapKb: Math.round(memory.heapUsed / 1024),
      waiting: autohub.runner.queued,
    });
  }
});
process.on('SIGTERM', () => void autohub.stop().then(() => process.exit(0)));
process.send?.({ ready: autohub.receiver.port });
