/**
 * Where a bot module failed to parse, as `file:line:column` (1-based, what an
 * editor opens): the bot's mistake named in the bot's file. Node's own
 * SyntaxError from `import()` of a `.js` or `.mjs` carries no place (Node
 * prints it only for an uncaught error), so the file is checked again with
 * `node --check`, which prints it; Node's type stripping puts the place in
 * the error's stack; tsx (esbuild) in its message.
 */
import { spawnSync } from 'node:child_process';

export interface ParseFailure {
  /** `file:line:column`. */
  at: string;
  /** What the parser said: `Unexpected token ';'`. */
  what: string;
}

/** esbuild's `file:line:col: ERROR: text` (its column counts from 0). */
function fromEsbuild(message: string): ParseFailure | undefined {
  const m = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(message);
  return m ? { at: `${m[1]}:${m[2]}:${Number(m[3]) + 1}`, what: m[4]!.trim() } : undefined;
}

/**
 * Node's framed place: `file:line`, the code (with a line before it, from
 * type stripping), a caret under the column, and then (in `node --check`'s
 * output) `SyntaxError: text`.
 */
export function fromFrame(text: string, file: string, fallbackWhat: string): ParseFailure | undefined {
  const lines = text.split('\n');
  const head = lines.findIndex((l) => l.startsWith(`${file}:`) && /:\d+$/.test(l));
  if (head < 0) return undefined;
  const line = lines[head]!.slice(file.length + 1);
  // The code may come with a line of context before it (Node's type stripping prints one): the caret line is the first of carets alone.
  const caretLine = lines.slice(head + 1, head + 6).find((l) => /^\s*\^+\s*$/.test(l));
  const caret = caretLine?.indexOf('^') ?? -1;
  const said = lines.slice(head + 1).find((l) => /^\w*Error: /.test(l));
  return { at: `${file}:${line}${caret >= 0 ? `:${caret + 1}` : ''}`, what: said ? said.replace(/^\w*Error: /, '') : fallbackWhat };
}

/** Where `error`, thrown importing `file`, says the file does not parse; undefined when it is not a parse failure. */
export function parseFailureOf(error: unknown, file: string, check: (file: string) => string = nodeCheck): ParseFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const esbuild = fromEsbuild(error.message);
  if (esbuild) return esbuild;
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_INVALID_TYPESCRIPT_SYNTAX' || code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') return fromFrame(error.stack ?? '', file, error.message);
  if (error.name !== 'SyntaxError' || /\.[mc]?ts$/.test(file)) return undefined;
  return fromFrame(check(file), file, error.message);
}

/** `node --check file`'s stderr: where a `.js` or `.mjs` does not parse (about 40 ms, on the failure path only). */
function nodeCheck(file: string): string {
  const result = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 });
  return result.stderr ?? '';
}
