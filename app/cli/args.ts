/**
 * Command-line arguments for every tool, through `node:util` `parseArgs`
 * (strict): an unknown flag, a missing value or a stray word is a UsageError
 * whose message names it and ends with the tool's usage line (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../../lib/errors/index.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs' own wording, said the way these tools say it. */
function reword(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `unknown argument ${JSON.stringify(unknown[1])}`;
  const missing = /Option '(-{1,2}[\w-]+)[^']*' argument missing/.exec(message);
  if (missing) return `${missing[1]} needs a value`;
  const stray = /Unexpected argument '([^']+)'/.exec(message);
  if (stray) return `unexpected ${JSON.stringify(stray[1])}`;
  return message;
}

export function parseCli<O extends Options>(argv: readonly string[], options: O, usage: string, allowPositionals = false) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError(`${reword(error)}; ${usage}`, { cause: error });
  }
}

/**
 * `--help` or `-h` anywhere in the arguments: the tool's usage line on
 * stdout, and true (the entry point then exits 0: a person who asks is not
 * making a usage error).
 */
export function helpAsked(argv: readonly string[], usage: string, print: (line: string) => void = console.log): boolean {
  if (!argv.includes('--help') && !argv.includes('-h')) return false;
  print(usage);
  return true;
}

/** A whole number within [min, max], or a UsageError naming the flag. */
export function wholeNumber(text: string | undefined, flag: string, min: number, max: number, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  }
  return Number(text);
}
