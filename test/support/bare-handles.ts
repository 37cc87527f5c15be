/**
 * Turn handles for a runner built by hand in a test whose listeners never
 * write to Slack: the handle still ends every turn (finished, handed back,
 * dead-lettered, stood down), as it does in a copy. Its clients point at a
 * Web API nobody serves; a note it tries to post fails and is logged.
 */
import { WebClient } from '@slack/web-api';
import type { Logger } from '../../lib/log/index.js';
import type { TurnRunnerOptions } from '../../lib/runner/index.js';
import { TurnHandle } from '../../lib/turn/handle.js';

export function bareHandles(log: Logger, copy: { role: 'hub' | 'cloud'; instance: string }): TurnRunnerOptions['handleFor'] {
  const client = new WebClient('xoxb-test', { slackApiUrl: 'http://127.0.0.1:9/api/', retryConfig: { retries: 0 } });
  return (lease, key, confirming) => new TurnHandle({ lease, key, confirming, clientFor: () => client, plain: client, closed: () => false, copy, log });
}
