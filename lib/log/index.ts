export { createLogger, createMemoryLogger, silentLogger } from './logger.js';
export type { Level, LogFields, Logger, LoggerOptions } from './logger.js';
export { slackLogger } from './slack-logger.js';
