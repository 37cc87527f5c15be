/**
 * Turn handles for tests that build them without a copy: one as app/parts.ts
 * builds it, its client against a Web API (the fake one) through the
 * rate-limit fetch; and bare ones, for a runner built by hand whose listeners
 * never write to Slack.
 */
import { WebClient } from '@slack/web-api';
import { silentLogger, slackLogger, type Logger } from '../../lib/log/index.js';
import { createRateLimitFetch, guardedClients } from '../../lib/ratelimit/index.js';
import type { TurnRunnerOptions } from '../../lib/runner/index.js';
import { TurnFence, TurnHandle, type TurnHandleOptions } from '../../lib/turn/index.js';

/** A copy's Web API clients as app/parts.ts builds them, against `apiUrl` (the fake Web API), through one rate-limit fetch. */
export function copyClients(apiUrl: string): Pick<TurnHandleOptions, 'clientFor' | 'plain' | 'closed'> {
  const rateLimit = createRateLimitFetch();
  const client = new WebClient('xoxb-test', { slackApiUrl: apiUrl, retryConfig: { retries: 0 }, fetch: rateLimit, logger: slackLogger(silentLogger) });
  return { clientFor: guardedClients(client, rateLimit.fenced), plain: client, closed: rateLimit.closed };
}

/**
 * A turn's handle on `clients` (a copy's, or fresh ones against that Web
 * API URL): behind `fence` (one with no lease by default), as the hub `hub-test`,
 * logging nowhere, unless `o` says otherwise.
 */
export function turnHandle(
  clients: string | ReturnType<typeof copyClients>,
  o: Partial<Omit<TurnHandleOptions, 'clientFor' | 'plain' | 'closed'>> = {},
): TurnHandle {
  return new TurnHandle({
    fence: new TurnFence(),
    copy: { role: 'hub', instance: 'hub-test' },
    log: silentLogger,
    ...o,
    ...(typeof clients === 'string' ? copyClients(clients) : clients),
  });
}

/**
 * Handles for a runner built by hand in a test whose listeners never write
 * to Slack: the handle still ends every turn (finished, handed back,
 * dead-lettered, stood down), as it does in a copy. Its clients point at a
 * Web API nobody serves; a note it tries to post fails and is logged.
 */
export function bareHandles(log: Logger, copy: { role: 'hub' | 'cloud'; instance: string }): TurnRunnerOptions['handleFor'] {
  const client = new WebClient('xoxb-test', { slackApiUrl: 'http://127.0.0.1:9/api/', retryConfig: { retries: 0 } });
  return (fence, key) => new TurnHandle({ fence, key, clientFor: () => client, plain: client, closed: () => false, copy, log });
}
