/**
 * Bolt's and the WebClient's logger interface, writing through autohub's
 * structured logger as `slack.log` lines. Message arguments are reduced to
 * text (Errors to their message), never serialised wholesale.
 */
import { LogLevel, type Logger as SlackLogger } from '@slack/logger';
import type { Logger } from './logger.js';

function text(parts: unknown[]): string {
  return parts
    .map((p) => (p instanceof Error ? p.message : typeof p === 'string' ? p : String(p)))
    .join(' ')
    .slice(0, 500);
}

export function slackLogger(log: Logger, initial: LogLevel = LogLevel.WARN): SlackLogger {
  let level = initial;
  let name = 'slack';
  const order = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];
  const on = (at: LogLevel) => order.indexOf(at) >= order.indexOf(level);
  return {
    debug: (...m) => on(LogLevel.DEBUG) && log.debug('slack.log', { source: name, message: text(m) }),
    info: (...m) => on(LogLevel.INFO) && log.info('slack.log', { source: name, message: text(m) }),
    warn: (...m) => on(LogLevel.WARN) && log.warn('slack.log', { source: name, message: text(m) }),
    error: (...m) => on(LogLevel.ERROR) && log.error('slack.log', { source: name, message: text(m) }),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: (next) => {
      name = next;
    },
  };
}
