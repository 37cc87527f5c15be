export { createLogger, createMemoryLogger, silentLogger } from './logger.js';
export type { Level, LogFields, Logger, LoggerOptions } from './logger.js';
export { slackLogger } from './slack-logger.js';
export { createRedactor } from './redact.js';
export type { Redactor } from './redact.js';
