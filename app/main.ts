/**
 * `npm start`: the Bolt app as the hub or the cloud copy (AUTOHUB_ROLE).
 *
 * `.env` is read into the process's environment first (under it: the real
 * environment wins), so the SDKs your bot uses find their keys there too.
 */
import { exportEnvFile, parseAppConfig, secretsOf, type AppConfig } from '../lib/config/index.js';
import { ConfigError } from '../lib/errors/index.js';
import { createLogger } from '../lib/log/index.js';
import type { TurnModule } from '../lib/turn/types.js';
import { createAutohub } from './create-app.js';
import { loadBot } from './turn-module.js';

/** A setting that cannot be used: its one line, and exit 1. Anything else is a bug and throws. */
function stopOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`autohub: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

function readConfig(): AppConfig {
  try {
    return parseAppConfig(exportEnvFile());
  } catch (error) {
    return stopOnConfigError(error);
  }
}

const config = readConfig();
// Your bot (AUTOHUB_TURN), or the demo turn: imported and checked before anything listens.
const turn: TurnModule = await loadBot(config).catch(stopOnConfigError);
const log = createLogger({ level: config.logLevel, base: { instance: config.instance, role: config.role }, secrets: secretsOf(config) });
const autohub = createAutohub({ config, log, turn });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('app.stopping', { signal, inFlight: autohub.runner.inFlight, drainMs: config.drainMs });
  await autohub.stop();
  log.info('app.stopped', { signal });
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('unhandledRejection', (error) => log.error('process.unhandled_rejection', { error }));

autohub.start().catch((error: unknown) => {
  log.error('app.start_failed', { error });
  process.exit(1);
});
