import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEnv, parseAppConfig } from '../../lib/config/index.js';
import { ConfigError } from '../../lib/errors/index.js';
import { createMemoryLogger } from '../../lib/log/index.js';
import { createStore, UpstashStore } from '../../lib/store/index.js';

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
      storeAttemptMs: 2000,
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
    [{ AUTOHUB_STORE_ATTEMPT_MS: '2s' }, /^AUTOHUB_STORE_ATTEMPT_MS is invalid: expected a whole number from 50 to 30000, received "2s"$/],
    [{ AUTOHUB_STORE_ATTEMPT_MS: '10' }, /^AUTOHUB_STORE_ATTEMPT_MS is invalid: expected a whole number from 50 to 30000, received "10"$/],
    [{ AUTOHUB_STORE_ATTEMPT_MS: '60000' }, /^AUTOHUB_STORE_ATTEMPT_MS is invalid/],
    [{ AUTOHUB_SHED_AT: 'many' }, /^AUTOHUB_SHED_AT is invalid/],
    [{ AUTOHUB_ROLE: 'cloud', AUTOHUB_SHED_AT: '-1' }, /^AUTOHUB_SHED_AT is invalid/],
    [{ AUTOHUB_MAX_REPLY_CHARS: '40k' }, /^AUTOHUB_MAX_REPLY_CHARS is invalid: expected a whole number from 500 to 1000000, received "40k"$/],
    [{ AUTOHUB_MAX_REPLY_CHARS: '10' }, /^AUTOHUB_MAX_REPLY_CHARS is invalid/],
    [
      { AUTOHUB_ALLOW_BOTS: 'U0PERSON' },
      /^AUTOHUB_ALLOW_BOTS is invalid: expected \* or bot ids separated by commas, e\.g\. B012ABCDEF \(a message's bot_id\), received "U0PERSON"$/,
    ],
    [{ AUTOHUB_ALLOW_BOTS: 'B0OTHER,,B0TWO' }, /^AUTOHUB_ALLOW_BOTS is invalid: .*received "B0OTHER,,B0TWO"$/],
    [{ AUTOHUB_ALLOW_BOTS: '*,B0OTHER' }, /^AUTOHUB_ALLOW_BOTS is invalid: .*received "\*"$/],
  ])('%j stops start-up with one line naming the variable', (override, message) => {
    const run = () => parseAppConfig({ ...valid, ...override });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(message);
  });

  it('AUTOHUB_ALLOW_BOTS: no other app by default, the bot ids listed, or every app with *', () => {
    expect(parseAppConfig(valid).allowBots).toEqual(new Set());
    expect(parseAppConfig({ ...valid, AUTOHUB_ALLOW_BOTS: ' B0OTHER , B0TWO ' }).allowBots).toEqual(new Set(['B0OTHER', 'B0TWO']));
    expect(parseAppConfig({ ...valid, AUTOHUB_ALLOW_BOTS: '*' }).allowBots).toBe('*');
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

  it("the store's commands off the ack path get their own fuse, AUTOHUB_STORE_ATTEMPT_MS; the claim keeps AUTOHUB_CLAIM_ATTEMPT_MS", () => {
    // The bug: one fuse, the claim's, for every store command.
    const config = parseAppConfig({ ...valid, AUTOHUB_STORE_ATTEMPT_MS: '3500' });
    expect(config.storeAttemptMs).toBe(3500);
    expect(config.claim.attemptMs).toBe(450);
    const store = createStore({ ...config, upstash: { url: 'http://127.0.0.1:9', token: 't' } }, createMemoryLogger());
    expect(store).toBeInstanceOf(UpstashStore);
    expect((store as UpstashStore).commandMs).toBe(3500);
    expect((store as UpstashStore).budget.attemptMs).toBe(450);
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

describe('a settings error names every bad setting at once, and never a credential', () => {
  const message = (env: Record<string, string | undefined>): string => {
    try {
      parseAppConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('parseAppConfig accepted it');
  };

  it('every bad or missing setting is named in one start, each on its own line', () => {
    const text = message({ AUTOHUB_ROLE: 'hub', PORT: 'eighty', AUTOHUB_OWNER: 'me' });
    expect(text.split('\n')).toEqual([
      '4 settings cannot be used:',
      '  SLACK_BOT_TOKEN is not set: expected a bot token starting with xoxb-',
      '  PORT is invalid: expected a whole number from 0 to 65535, received "eighty"',
      "  SLACK_SIGNING_SECRET is not set: expected the app's signing secret from Basic Information",
      '  AUTOHUB_OWNER is invalid: expected one or more Slack user ids separated by commas, e.g. U012ABCDEF, received "me"',
    ]);
  });

  it('one bad setting is one line, as before', () => {
    expect(message({ ...valid, AUTOHUB_ROLE: undefined })).toBe('AUTOHUB_ROLE is not set: expected one of hub, cloud');
  });

  it('a redis:// store URL is answered with where the REST URL is, and its password is not printed', () => {
    for (const scheme of ['redis', 'rediss']) {
      const text = message({
        ...valid,
        UPSTASH_REDIS_REST_URL: `${scheme}://default:AZx9PASSWORDq2@eu1-fine-cat-12345.upstash.io:6379`,
        UPSTASH_REDIS_REST_TOKEN: 'AZx9token-0123456789',
      });
      expect(text).toContain('UPSTASH_REDIS_REST_URL is invalid');
      expect(text).toContain('https://<name>.upstash.io');
      expect(text).toContain('REST API section');
      expect(text).toContain(`"${scheme}://***@eu1-fine-cat-12345.upstash.io:6379"`);
      expect(text).not.toContain('PASSWORD');
    }
  });

  it.each([
    ['a URL with a password', { UPSTASH_REDIS_REST_URL: 'ftp://user:hunter2hunter2@x.upstash.io', UPSTASH_REDIS_REST_TOKEN: 'tok' }, 'hunter2hunter2'],
    ['a token in a URL query', { AUTOHUB_PEER_URL: 'ftp://peer.example/?token=s3cr3t-query-token' }, 's3cr3t-query-token'],
    ['a token pasted as a URL', { AUTOHUB_EDGE_URL: 'AYQgASQgNjYxZDk0OTctYmM4My00' }, 'AYQgASQgNjYxZDk0OTctYmM4My00'],
    ['a user token, past its prefix', { SLACK_BOT_TOKEN: 'xoxp-1234-5678-secretpart' }, '1234-5678-secretpart'],
    ['a token with no known prefix at all', { SLACK_BOT_TOKEN: 'sk-ant-api03-abcdef' }, 'sk-ant'],
    [
      'the bot token pasted into another setting',
      { SLACK_BOT_TOKEN: 'xoxb-9999-8888-pasted', AUTOHUB_INSTANCE: 'xoxb-9999-8888-pasted and more' },
      '9999-8888',
    ],
    ['the signing secret pasted into another setting', { SLACK_SIGNING_SECRET: 'f00dfeedf00dfeed', AUTOHUB_OWNER: 'f00dfeedf00dfeed' }, 'f00dfeedf00dfeed'],
    ['a store key of the wrong length', { AUTOHUB_STORE_KEY: 'abcdef0123456789' }, 'abcdef0123456789'],
  ])('%s is not printed', (_, override, secret) => {
    const text = message({ ...valid, ...override });
    expect(text).not.toContain(secret);
  });
});
