/**
 * The environment as the process should see it: `.env` (when present) under
 * the real environment, which always wins. AUTOHUB_ENV_FILE names another
 * file, or `none` for no file at all (the drill and the tests start copies
 * that must never pick up a developer's real tokens).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'dotenv';
import type { Env } from '../env/index.js';

export function loadEnv(env: Env = process.env, path = env.AUTOHUB_ENV_FILE?.trim() || '.env'): Env {
  if (path === 'none' || !existsSync(path)) return { ...env };
  const fromFile = parse(readFileSync(path));
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  return merged;
}

/**
 * `.env`'s values put into `target` (the process's own environment) where it
 * has none, so a library that reads `process.env` itself (a model SDK looking
 * for ANTHROPIC_API_KEY, say) sees them too. The environment still wins, an
 * empty value in the file sets nothing, and AUTOHUB_ENV_FILE=none reads no
 * file. Returns the merged environment, as `loadEnv` does.
 */
export function exportEnvFile(target: Record<string, string | undefined> = process.env, path?: string): Env {
  const merged = path === undefined ? loadEnv(target) : loadEnv(target, path);
  for (const [key, value] of Object.entries(merged)) {
    if (target[key] === undefined && value !== undefined && value !== '') target[key] = value;
  }
  return merged;
}
