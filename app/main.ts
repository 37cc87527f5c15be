/**
 * `npm start`: the Bolt app as the hub or the cloud copy (AUTOHUB_ROLE).
 */
import { loadEnv, parseAppConfig, secretsOf, type AppConfig } from '../lib/config/index.js';
import { ConfigError } from '../lib/errors/index.js';
import { createLogger } from '../lib/log/index.js';
import { createAutohub } from './create-app.js';

function readConfig(): AppConfig {
  try {
    return parseAppConfig(loadEnv());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`autohub: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

const config = readConfig();
const log = createLogger({ level: config.logLevel, base: { instance: config.instance, role: config.role }, secrets: secretsOf(config) });
const autohub = createAutohub({ config, log });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('app.stopping', { signal, inFlight: autohub.receiver.inFlight, drainMs: config.drainMs });
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
