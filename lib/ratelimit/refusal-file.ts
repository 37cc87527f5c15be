/** Reading a refusal log back: a JSON array, or JSON Lines. */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors/index.js';
import type { LoggedRefusal } from './verdict.js';

export function parseRefusals(text: string, name = 'the log'): LoggedRefusal[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new UsageError(`${name} starts like a JSON array but is not valid JSON`, { cause: error });
    }
    if (!Array.isArray(parsed)) throw new UsageError(`${name} is not a JSON array`);
    return parsed as LoggedRefusal[];
  }
  return trimmed.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    try {
      const record = JSON.parse(line) as unknown;
      if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new Error('not an object');
      return [record as LoggedRefusal];
    } catch (error) {
      throw new UsageError(`${name}, line ${i + 1}, is not a JSON object`, { cause: error });
    }
  });
}

export async function readRefusals(path: string): Promise<LoggedRefusal[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, { cause: error });
  }
  return parseRefusals(text, path);
}
