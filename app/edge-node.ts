/**
 * `npm run edge`: the edge router on Node (PORT, HUB_URL, CLOUD_URL), the
 * same code the Worker runs.
 */
import { loadEnv, readInt } from '../lib/config/index.js';
import { createEdgeRouter, parseEdgeSettings } from '../lib/edge/index.js';
import { serveFetchHandler } from '../lib/edge-node/index.js';
import { createEdgeKeeper, parseInboxSettings, type InboxSettings } from '../lib/inbox/index.js';
import { ConfigError } from '../lib/errors/index.js';
import { createLogger } from '../lib/log/index.js';

const env = loadEnv();
let port: number;
let settings: ReturnType<typeof parseEdgeSettings>;
let inboxSettings: InboxSettings | undefined;
try {
  port = readInt(env, 'PORT', 8787, { min: 0, max: 65535 });
  settings = parseEdgeSettings(env);
  inboxSettings = parseInboxSettings(env);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`autohub edge: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const log = createLogger({
  base: { role: 'edge' },
  secrets: [settings.signingSecret, settings.healthToken ?? '', inboxSettings?.token ?? '', inboxSettings?.storeKey ?? ''],
});
const router = createEdgeRouter({
  settings,
  log: (event, fields) => log.info(event, fields),
  ...(inboxSettings ? { inbox: createEdgeKeeper({ settings: inboxSettings, signingSecret: settings.signingSecret }) } : {}),
});
const server = serveFetchHandler(router.handle, {
  maxBodyBytes: settings.maxBodyBytes,
  // A request whose handling failed got 500 (or its connection closed); the edge serves on.
  onError: (error) => log.error('edge.request_failed', { error }),
});
server.listen(port, () => {
  const address = server.address();
  log.info('edge.started', {
    port: typeof address === 'object' && address ? address.port : port,
    hub: settings.hubUrl,
    cloud: settings.cloudUrl,
    verifiesSignatures: Boolean(settings.signingSecret),
    inbox: Boolean(inboxSettings),
  });
});
const stop = (signal: string) => {
  log.info('edge.stopping', { signal });
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 3000).unref();
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
