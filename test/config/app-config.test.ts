import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEnv, parseAppConfig } from '../../lib/config/index.js';
import { ConfigError } from '../../lib/errors/index.js';

const valid = {
  AUTOHUB_ROLE: 'hub',
  SLACK_SIGNING_SECRET: 'secret',
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
};

describe('parseAppConfig', () => {
  it('fills every default from a minimal environment', () => {
    const config = parseAppConfig(valid);
    expect(config).toMatchObject({
      role: 'hub',
      port: 3000,
      slackApiUrl: 'https://slack.com/api/',
      upstash: null,
      claim: { attemptMs: 450, attempts: 2 },
      refusalLog: 'autohub-refusals.jsonl',
    });
    expect(config.instance).toMatch(/^hub-/);
  });

  it.each([
    [{ AUTOHUB_ROLE: undefined }, /^AUTOHUB_ROLE is not set: expected one of hub, cloud$/],
    [{ AUTOHUB_ROLE: 'edge' }, /^AUTOHUB_ROLE is invalid: expected one of hub, cloud, received "edge"$/],
    [{ SLACK_SIGNING_SECRET: ' ' }, /^SLACK_SIGNING_SECRET is not set/],
    [{ SLACK_BOT_TOKEN: 'xoxp-user' }, /^SLACK_BOT_TOKEN is invalid: expected a bot token starting with xoxb-, received "xoxp-\.\.\."$/],
    [{ PORT: '80a' }, /^PORT is invalid: expected a whole number from 0 to 65535, received "80a"$/],
    [{ PORT: '70000' }, /^PORT is invalid/],
    [{ SLACK_API_URL: 'ftp://x' }, /^SLACK_API_URL is invalid: expected an http/],
    [{ UPSTASH_REDIS_REST_URL: 'https://x.upstash.io' }, /^UPSTASH_REDIS_REST_TOKEN is not set/],
    [{ UPSTASH_REDIS_REST_TOKEN: 'tok' }, /^UPSTASH_REDIS_REST_URL is not set/],
    [{ AUTOHUB_INSTANCE: 'my mac' }, /^AUTOHUB_INSTANCE is invalid/],
    [{ AUTOHUB_CLAIM_ATTEMPTS: '9' }, /^AUTOHUB_CLAIM_ATTEMPTS is invalid/],
    [{ AUTOHUB_SHED_AT: 'many' }, /^AUTOHUB_SHED_AT is invalid/],
    [{ AUTOHUB_ROLE: 'cloud', AUTOHUB_SHED_AT: '-1' }, /^AUTOHUB_SHED_AT is invalid/],
    [{ AUTOHUB_MAX_REPLY_CHARS: '40k' }, /^AUTOHUB_MAX_REPLY_CHARS is invalid: expected a whole number from 500 to 1000000, received "40k"$/],
    [{ AUTOHUB_MAX_REPLY_CHARS: '10' }, /^AUTOHUB_MAX_REPLY_CHARS is invalid/],
  ])('%j stops start-up with one line naming the variable', (override, message) => {
    const run = () => parseAppConfig({ ...valid, ...override });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(message);
  });

  it('only the hub hands deliveries on while busy: off by default, and 0 (never) on the cloud copy whatever is set', () => {
    expect(parseAppConfig(valid).shedAt).toBe(0);
    expect(parseAppConfig({ ...valid, AUTOHUB_SHED_AT: '64' }).shedAt).toBe(64);
    expect(parseAppConfig({ ...valid, AUTOHUB_ROLE: 'cloud', AUTOHUB_SHED_AT: '5' }).shedAt).toBe(0);
  });

  it('the longest answer shown is 40,000 characters unless AUTOHUB_MAX_REPLY_CHARS says', () => {
    expect(parseAppConfig(valid).maxReplyChars).toBe(40_000);
    expect(parseAppConfig({ ...valid, AUTOHUB_MAX_REPLY_CHARS: '100000' }).maxReplyChars).toBe(100_000);
  });

  it('keeps a path under SLACK_API_URL and ends it with a slash', () => {
    expect(parseAppConfig({ ...valid, SLACK_API_URL: 'http://127.0.0.1:9999/api' }).slackApiUrl).toBe('http://127.0.0.1:9999/api/');
  });

  it('turns the refusal log off with "off"', () => {
    expect(parseAppConfig({ ...valid, AUTOHUB_REFUSAL_LOG: 'off' }).refusalLog).toBeNull();
  });
});

describe('loadEnv', () => {
  it('reads .env and lets the real environment win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autohub-env-'));
    const path = join(dir, '.env');
    writeFileSync(path, 'PORT=4000\nAUTOHUB_ROLE=cloud\n');
    const env = loadEnv({ AUTOHUB_ROLE: 'hub' }, path);
    expect(env.PORT).toBe('4000');
    expect(env.AUTOHUB_ROLE).toBe('hub');
  });

  it('is the environment alone when there is no .env', () => {
    expect(loadEnv({ A: '1' }, '/nonexistent/.env')).toEqual({ A: '1' });
  });

  it('reads the file AUTOHUB_ENV_FILE names, and none at all for "none"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autohub-env-'));
    const path = join(dir, 'other.env');
    writeFileSync(path, 'PORT=4100\n');
    expect(loadEnv({ AUTOHUB_ENV_FILE: path }).PORT).toBe('4100');
    expect(loadEnv({ AUTOHUB_ENV_FILE: 'none' }).PORT).toBeUndefined();
  });
});
