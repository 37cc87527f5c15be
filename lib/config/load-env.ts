/**
 * The environment as the process should see it: `.env` (when present) under
 * the real environment, which always wins.
 */
import { existsSync } from 'node:fs';
import { parse } from 'dotenv';
import { readFileSync } from 'node:fs';
import type { Env } from './read.js';

export function loadEnv(
  env: Env = process.env,
  path = '.env',
): Env {
  if (!existsSync(path)) return { ...env };
  const fromFile = parse(readFileSync(path));
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  return merged;
}
