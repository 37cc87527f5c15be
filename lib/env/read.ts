/**
 * Small readers that turn one environment variable into a typed value or a
 * ConfigError naming the variable and the form it should take.
 */
import { ConfigError } from '../errors/index.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The trimmed value, or undefined when unset or blank. */
export function readRaw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function readRequired(env: Env, name: string, expected: string): string {
  const value = readRaw(env, name);
  if (value === undefined) throw new ConfigError(name, expected);
  return value;
}

export function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback?: T): T {
  const expected = `one of ${allowed.join(', ')}`;
  const value = readRaw(env, name);
  if (value === undefined) {
    if (fallback !== undefined) return fallback;
    throw new ConfigError(name, expected);
  }
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(name, expected, value);
  return value as T;
}

export function readInt(env: Env, name: string, fallback: number, range: { min: number; max: number }): number {
  const value = readRaw(env, name);
  if (value === undefined) return fallback;
  const expected = `a whole number from ${range.min} to ${range.max}`;
  if (!/^\d+$/.test(value)) throw new ConfigError(name, expected, value);
  const number = Number(value);
  if (number < range.min || number > range.max) throw new ConfigError(name, expected, value);
  return number;
}

/**
 * A URL as a settings error may show it: a user name, password or query
 * (where credentials ride: `redis://default:PASSWORD@host`, `?token=...`)
 * replaced by `***`. Pure.
 */
export function shownUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.username || url.password) {
      url.username = '***';
      url.password = '';
    }
    if (url.search) url.search = '?***';
    return url.toString();
  } catch {
    // Not a URL at all: a mistyped one is shown (never the part between // and @, nor a query); a bare
    // word, which may be a token pasted into the wrong variable, by its length alone.
    if (!/[./]/.test(value)) return `${value.length} characters, not a URL`;
    return value.replace(/\/\/[^/?#]*@/, '//***@').replace(/\?.*$/, '?***');
  }
}

/** `value` as an http(s) URL, or a ConfigError naming `name` and the form expected (the value shown without credentials). */
export function httpUrl(name: string, value: string | undefined, expected: string): URL {
  if (value === undefined) throw new ConfigError(name, expected);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, expected, shownUrl(value));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, expected, shownUrl(value));
  return url;
}

/** An http(s) URL; `trailingSlash` makes a base URL that relative paths resolve under. */
export function readUrl(env: Env, name: string, fallback?: string, options: { trailingSlash?: boolean; expected?: string } = {}): string {
  const url = httpUrl(name, readRaw(env, name) ?? fallback, options.expected ?? 'an http:// or https:// URL, e.g. https://example.com/');
  let text = url.toString();
  if (options.trailingSlash && !text.endsWith('/')) text += '/';
  if (!options.trailingSlash && text.endsWith('/') && url.pathname === '/') text = text.slice(0, -1);
  return text;
}
