/**
 * Reading every setting before saying what is wrong: each reader that throws
 * a ConfigError is noted and its setting given a stand-in, so one start names
 * every bad or missing setting (a ConfigErrors), not the first alone. Before
 * anything is thrown, every credential the environment holds is masked in the
 * messages: a token pasted into the wrong variable is not printed either.
 */
import { ConfigError, ConfigErrors } from '../errors/index.js';
import { readRaw, type Env } from '../env/index.js';

/** The settings that hold credentials: their values never appear in a settings error. */
export const CREDENTIAL_SETTINGS = [
  'SLACK_SIGNING_SECRET',
  'SLACK_BOT_TOKEN',
  'UPSTASH_REDIS_REST_TOKEN',
  'AUTOHUB_HEALTH_TOKEN',
  'AUTOHUB_STORE_KEY',
  'AUTOHUB_STORE_KEY_PREVIOUS',
] as const;

/** Shorter values are not masked: a credential is longer, and masking "hub" would garble the messages. */
const MIN_MASKED = 8;

function credentials(env: Env): string[] {
  return CREDENTIAL_SETTINGS.flatMap((name) => (readRaw(env, name) ?? '').split(',').map((v) => v.trim())).filter((v) => v.length >= MIN_MASKED);
}

export class SettingsReader {
  readonly errors: ConfigError[] = [];
  constructor(private readonly env: Env) {}

  /** `read()`'s value, or `standIn` when it throws a ConfigError (noted for `done`). */
  take<T>(read: () => T, standIn: T): T {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const e of error instanceof ConfigErrors ? error.errors : [error]) this.errors.push(e);
      return standIn;
    }
  }

  /** Throws what was noted: one ConfigError as it is, several as a ConfigErrors; every credential masked. */
  done(): void {
    if (this.errors.length === 0) return;
    const secrets = credentials(this.env);
    for (const e of this.errors) for (const s of secrets) e.message = e.message.split(s).join('[redacted]');
    throw this.errors.length === 1 ? this.errors[0]! : new ConfigErrors(this.errors);
  }
}
