/**
 * Structured logs: one JSON object a line, a stable `event` name first.
 *
 * Railway's log view and a terminal both read this. Every field passes the
 * redaction step (lib/log/redact.ts): errors keep their stack and code, and
 * nothing from a message body, a stored record or a credential gets through.
 */
import { createRedactor } from './redact.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';

/** A logger's threshold: a level, or 'silent' for none at all. */
export type Threshold = Level | 'silent';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

const rank: Record<Threshold, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface LoggerOptions {
  /** Fields added to every line, e.g. `{ instance, role }`. */
  base?: LogFields;
  /** @default 'info' */
  level?: Threshold;
  /** Where a finished line goes. @default writes to stdout (stderr for warn and error) */
  write?: (line: string, level: Level) => void;
  /** @default Date.now */
  now?: () => number;
  /** Values masked wherever they appear (the signing secret, the bot token, the store's token, ...). */
  secrets?: readonly string[];
}

function defaultWrite(line: string, level: Level): void {
  (level === 'warn' || level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const base = options.base ?? {};
  const min = rank[options.level ?? 'info'];
  const write = options.write ?? defaultWrite;
  const now = options.now ?? Date.now;
  const redact = createRedactor(options.secrets);

  const emit = (level: Level, event: string, fields: LogFields = {}) => {
    if (rank[level] < min) return;
    const record: LogFields = { event, level, at: new Date(now()).toISOString(), ...base };
    Object.assign(record, redact(fields));
    write(JSON.stringify(record), level);
  };

  return {
    debug: (event, fields) => emit('debug', event, fields),
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
    child: (fields) => createLogger({ ...options, base: { ...base, ...fields } }),
  };
}

/** A logger that keeps its lines in memory, for tests and the drill. */
export function createMemoryLogger(options: Omit<LoggerOptions, 'write'> = {}): Logger & {
  lines: LogFields[];
} {
  const lines: LogFields[] = [];
  const logger = createLogger({
    level: 'debug',
    ...options,
    write: (line) => lines.push(JSON.parse(line) as LogFields),
  });
  return Object.assign(logger, { lines });
}

export const silentLogger: Logger = createLogger({ level: 'silent', write: () => {} });
