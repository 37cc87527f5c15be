/**
 * `npm start`: the Bolt app as the hub or the cloud copy (AUTOHUB_ROLE).
 *
 * `.env` is read into the process's environment first (under it: the real
 * environment wins), so the SDKs your bot uses find their keys there too.
 */
import { exportEnvFile, parseAppConfig, secretsOf, type AppConfig } from '../lib/config/index.js';
import { ConfigError } from '../lib/errors/index.js';
import { createLogger } from '../lib/log/index.js';
// Not through lib/slack's index: the Worker imports that, and this brings the WebClient.
import { checkToken } from '../lib/slack/token-check.js';
import type { TurnModule } from '../lib/bot/index.js';
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
// The token, asked of Slack once: refused, it stops start-up in one line; Slack out of reach, the copy starts anyway.
const token = await checkToken(config.botToken, { apiUrl: config.slackApiUrl });
if (token.kind === 'refused') {
  process.stderr.write(
    `autohub: SLACK_BOT_TOKEN is invalid: Slack's auth.test refused it (${token.error}); expected the app's Bot User OAuth Token (xoxb-...) from OAuth & Permissions, reinstalled if it was revoked\n`,
  );
  process.exit(1);
}
if (token.kind === 'unknown') log.warn('app.token_unchecked', { reason: token.reason, detail: 'Slack did not answer auth.test; starting anyway' });
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
